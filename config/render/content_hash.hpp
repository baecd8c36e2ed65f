// Deterministic content hash used to name content-addressed objects and to detect drift.
#pragma once

#include <string>
#include <string_view>

namespace br::render {

/// 16 lowercase hex digits (64-bit FNV-1a). Not a security hash: it only has to change when the
/// content changes, and equal content must give the same name in every operator version.
std::string content_hash(std::string_view content);

}  // namespace br::render
