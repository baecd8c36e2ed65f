// Percent-encoding of a URL query value or path segment (RFC 3986 unreserved characters kept;
// also the encoding SigV4 signs, io/storage/s3_request).
#pragma once

#include <string>
#include <string_view>

namespace br {

/// Unreserved A-Z a-z 0-9 - . _ ~ kept, '/' kept when `keep_slash` (a whole object path), every
/// other byte %XX (upper case).
std::string url_escape(std::string_view s, bool keep_slash = false);

}  // namespace br
