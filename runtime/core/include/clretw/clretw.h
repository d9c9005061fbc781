// clretw/clretw.h - the decode core in one include. Trace sources (nettrace.h)
// are libraries of their own; generated decoders come with their events.h.
#pragma once

#include "clretw/bytes.h"
#include "clretw/catalogs.h"
#include "clretw/decode.h"
#include "clretw/describe.h"
#include "clretw/dispatch.h"
#include "clretw/flags.h"
#include "clretw/format.h"
#include "clretw/guid.h"
#include "clretw/layout.h"
#include "clretw/payload.h"
#include "clretw/record.h"
#include "clretw/result.h"
#include "clretw/schema.h"
#include "clretw/self_describing.h"
#include "clretw/text.h"
#include "clretw/view.h"
