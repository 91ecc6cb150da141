// SPDX-License-Identifier: MIT
// Which build of the collector this is: the preloaded one (libmemusage.so), or the one loaded
// into running processes (libmemusage-attach.so, built with MEMUSAGE_ATTACH_VARIANT).
#pragma once

namespace memusage {

#if defined(MEMUSAGE_ATTACH_VARIANT)
inline constexpr bool kAttachVariant = true;
#else
inline constexpr bool kAttachVariant = false;
#endif

}  // namespace memusage
