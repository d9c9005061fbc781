#include "clretw/payload.h"

namespace clretw {

namespace {
constexpr Segment kEmptySegments[] = {{0, kNoField}};
constexpr RecordDesc kEmptyRecord{.name = "(no payload)", .fields = {}, .layout = {{{}, kEmptySegments, 0}, {{}, kEmptySegments, 0}}};
}  // namespace

const RecordDesc& EmptyPayload::record() noexcept { return kEmptyRecord; }

}  // namespace clretw
