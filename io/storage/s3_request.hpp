// The pure parts of the S3 client: endpoint and addressing style, URL and query encoding (the
// canonical form SigV4 signs: keys sorted, RFC 3986 escapes), the bounded XML reading of S3's
// answers, retry classification and backoff. No I/O here; tests drive it with tables.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace br::storage::s3 {

struct endpoint {
  std::string scheme;     ///< "http" or "https"
  std::string host;       ///< no port; an IPv6 literal keeps its brackets
  std::string port;       ///< "" = the scheme's default
  bool path_style = false;
  std::string authority() const { return port.empty() ? host : host + ":" + port; }
};

/// The endpoint to talk to: `url` ("" = AWS's https://s3.<region>.amazonaws.com), path style
/// when forced or when the host is an IP literal or "localhost". nullopt for an unusable URL.
std::optional<endpoint> resolve_endpoint(const std::string& url, const std::string& region, bool force_path_style);

/// True for an IPv4 literal, a bracketed IPv6 literal, or "localhost".
bool host_needs_path_style(std::string_view host);

using query_params = std::vector<std::pair<std::string, std::string>>;
/// "k1=v1&k2=v2", sorted by key then value, both encoded; an empty value keeps its '='
/// ("uploads="), which is the canonical form SigV4 signs.
std::string canonical_query(query_params q);

/// URL of an object (`full_key` includes the store prefix) or of the bucket itself (key "").
std::string object_url(const endpoint& ep, const std::string& bucket, const std::string& full_key,
                       const query_params& q = {});

// ---- XML answers (bounded, never throws: garbage yields empty results) -----------------------

/// The text of every <tag>...</tag> in `doc` (not nested in each other), entities decoded.
std::vector<std::string> xml_all(std::string_view doc, std::string_view tag, size_t max_items = 100000);
/// The first one, if any.
std::optional<std::string> xml_first(std::string_view doc, std::string_view tag);
/// &amp; &lt; &gt; &quot; &apos; and numeric references decoded; anything malformed kept as is.
std::string xml_unescape(std::string_view s);
std::string xml_escape(std::string_view s);

struct list_page {
  struct item {
    std::string key;  ///< the full key as the bucket holds it
    uint64_t size = 0;
  };
  std::vector<item> items;
  bool truncated = false;
  std::string next_token;  ///< NextContinuationToken when truncated
  std::string error;       ///< "" = the page parsed
};
/// A ListObjectsV2 answer.
list_page parse_list_page(std::string_view doc);

/// "<Code>: <Message>" of an S3 error document, or "" when it is none.
std::string error_summary(std::string_view doc);

/// CompleteMultipartUpload body for parts 1..n with these ETags (quotes kept as the server gave them).
std::string complete_multipart_body(const std::vector<std::string>& etags);

// ---- retries --------------------------------------------------------------------------------

/// Worth another attempt: transport errors (status 0), 408, 429 and 5xx.
bool retryable_status(int status);
/// Delay before attempt `attempt` (1 = the first retry): base * 2^(attempt-1) capped at max,
/// then "equal jitter": uniformly within [d/2, d] using `unit` in [0, 1).
std::chrono::milliseconds backoff_delay(int attempt, std::chrono::milliseconds base, std::chrono::milliseconds max,
                                        double unit);

}  // namespace br::storage::s3
