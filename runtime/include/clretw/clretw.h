// clretw/clretw.h - the whole runtime in one include.
#pragma once

#include "clretw/bytes.h"
#include "clretw/decode.h"
#include "clretw/dispatch.h"
#include "clretw/format.h"
#include "clretw/guid.h"
#include "clretw/layout.h"
#include "clretw/record.h"
#include "clretw/result.h"
#include "clretw/schema.h"
#include "clretw/text.h"
#include "clretw/view.h"
