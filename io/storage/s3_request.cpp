// S3 client pure parts: addressing, canonical encoding, bounded XML reading, backoff.
#include "io/storage/s3_request.hpp"

#include "io/codec/url.hpp"

#include <algorithm>
#include <cctype>

namespace br::storage::s3 {

namespace {

bool is_ipv4(std::string_view h) {
  int dots = 0, digits = 0;
  for (char c : h) {
    if (c == '.') {
      if (digits == 0) return false;
      ++dots;
      digits = 0;
    } else if (c >= '0' && c <= '9') {
      if (++digits > 3) return false;
    } else {
      return false;
    }
  }
  return dots == 3 && digits > 0;
}

}  // namespace

bool host_needs_path_style(std::string_view host) {
  if (host == "localhost") return true;
  if (!host.empty() && host.front() == '[') return true;
  return is_ipv4(host);
}

std::optional<endpoint> resolve_endpoint(const std::string& url, const std::string& region, bool force) {
  endpoint ep;
  std::string rest;
  if (url.empty()) {
    ep.scheme = "https";
    rest = "s3." + region + ".amazonaws.com";
  } else {
    auto se = url.find("://");
    if (se == std::string::npos) return std::nullopt;
    ep.scheme = url.substr(0, se);
    if (ep.scheme != "http" && ep.scheme != "https") return std::nullopt;
    rest = url.substr(se + 3);
    while (!rest.empty() && rest.back() == '/') rest.pop_back();
  }
  if (rest.empty() || rest.find_first_of("/?#@ ") != std::string::npos) return std::nullopt;
  if (rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string::npos) return std::nullopt;
    ep.host = rest.substr(0, close + 1);
    auto tail = rest.substr(close + 1);
    if (!tail.empty()) {
      if (tail.front() != ':') return std::nullopt;
      ep.port = tail.substr(1);
    }
  } else {
    auto colon = rest.find(':');
    ep.host = rest.substr(0, colon);
    if (colon != std::string::npos) ep.port = rest.substr(colon + 1);
  }
  if (ep.host.empty()) return std::nullopt;
  if (!ep.port.empty()) {
    if (ep.port.size() > 5 || ep.port.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    auto n = std::stoul(ep.port);
    if (n == 0 || n > 65535) return std::nullopt;
  }
  std::transform(ep.host.begin(), ep.host.end(), ep.host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  ep.path_style = force || host_needs_path_style(ep.host);
  return ep;
}

std::string canonical_query(query_params q) {
  for (auto& [k, v] : q) {
    k = url_escape(k, false);
    v = url_escape(v, false);
  }
  std::sort(q.begin(), q.end());
  std::string out;
  for (const auto& [k, v] : q) {
    if (!out.empty()) out += '&';
    out += k + "=" + v;
  }
  return out;
}

std::string object_url(const endpoint& ep, const std::string& bucket, const std::string& full_key,
                       const query_params& q) {
  std::string url = ep.scheme + "://";
  if (ep.path_style) {
    url += ep.authority() + "/" + bucket;
    url += full_key.empty() ? "/" : "/" + url_escape(full_key, true);
  } else {
    url += bucket + "." + ep.authority() + "/" + url_escape(full_key, true);
  }
  if (!q.empty()) url += "?" + canonical_query(q);
  return url;
}

std::string xml_unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '&') {
      out += s[i++];
      continue;
    }
    auto semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out += s[i++];
      continue;
    }
    auto ent = s.substr(i + 1, semi - i - 1);
    std::string rep;
    if (ent == "amp") rep = "&";
    else if (ent == "lt") rep = "<";
    else if (ent == "gt") rep = ">";
    else if (ent == "quot") rep = "\"";
    else if (ent == "apos") rep = "'";
    else if (ent.size() >= 2 && ent[0] == '#') {
      unsigned long cp = 0;
      bool hex = ent[1] == 'x' || ent[1] == 'X';
      auto digits = ent.substr(hex ? 2 : 1);
      bool ok = !digits.empty();
      for (char c : digits) {
        int d = (c >= '0' && c <= '9') ? c - '0'
                : hex && (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : hex && (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                 : -1;
        if (d < 0) ok = false;
        else cp = cp * (hex ? 16 : 10) + static_cast<unsigned long>(d);
        if (cp > 0x10FFFF) ok = false;
        if (!ok) break;
      }
      if (ok) {  // UTF-8
        if (cp < 0x80) rep += static_cast<char>(cp);
        else if (cp < 0x800) {
          rep += static_cast<char>(0xC0 | (cp >> 6));
          rep += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          rep += static_cast<char>(0xE0 | (cp >> 12));
          rep += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          rep += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          rep += static_cast<char>(0xF0 | (cp >> 18));
          rep += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
          rep += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          rep += static_cast<char>(0x80 | (cp & 0x3F));
        }
      }
    }
    if (rep.empty()) {
      out += s[i++];
      continue;
    }
    out += rep;
    i = semi + 1;
  }
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<std::string> xml_all(std::string_view doc, std::string_view tag, size_t max_items) {
  std::vector<std::string> out;
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  size_t at = 0;
  while (out.size() < max_items) {
    auto b = doc.find(open, at);
    if (b == std::string_view::npos) break;
    b += open.size();
    auto e = doc.find(close, b);
    if (e == std::string_view::npos) break;
    out.push_back(xml_unescape(doc.substr(b, e - b)));
    at = e + close.size();
  }
  return out;
}

std::optional<std::string> xml_first(std::string_view doc, std::string_view tag) {
  auto all = xml_all(doc, tag, 1);
  if (all.empty()) return std::nullopt;
  return all.front();
}

list_page parse_list_page(std::string_view doc) {
  list_page page;
  if (doc.find("<ListBucketResult") == std::string_view::npos) {
    page.error = "not a ListBucketResult document";
    return page;
  }
  // Each <Contents> block holds one object's <Key> and <Size>.
  const std::string_view open = "<Contents>", close = "</Contents>";
  size_t at = 0;
  while (true) {
    auto b = doc.find(open, at);
    if (b == std::string_view::npos) break;
    auto e = doc.find(close, b);
    if (e == std::string_view::npos) {
      page.error = "unterminated <Contents>";
      return page;
    }
    auto block = doc.substr(b + open.size(), e - b - open.size());
    auto key = xml_first(block, "Key");
    auto size = xml_first(block, "Size");
    if (!key || key->empty()) {
      page.error = "a <Contents> without <Key>";
      return page;
    }
    list_page::item it;
    it.key = *key;
    if (size) {
      if (size->empty() || size->size() > 19 || size->find_first_not_of("0123456789") != std::string::npos) {
        page.error = "bad <Size> of " + it.key;
        return page;
      }
      it.size = std::stoull(*size);
    }
    page.items.push_back(std::move(it));
    at = e + close.size();
  }
  // Keys are escaped in the document, so these tags cannot come from inside a <Key>.
  auto truncated = xml_first(doc, "IsTruncated");
  page.truncated = truncated && *truncated == "true";
  if (page.truncated) {
    auto tok = xml_first(doc, "NextContinuationToken");
    if (!tok || tok->empty()) {
      page.error = "truncated listing without a NextContinuationToken";
      return page;
    }
    page.next_token = *tok;
  }
  return page;
}

std::string error_summary(std::string_view doc) {
  if (doc.find("<Error>") == std::string_view::npos) return {};
  auto code = xml_first(doc, "Code").value_or("");
  auto msg = xml_first(doc, "Message").value_or("");
  std::string out = code.empty() ? "error" : code;
  if (!msg.empty()) out += ": " + msg;
  for (auto& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  if (out.size() > 300) out = out.substr(0, 300) + "...";
  return out;
}

std::string complete_multipart_body(const std::vector<std::string>& etags) {
  std::string out = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags.size(); ++i)
    out += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + xml_escape(etags[i]) +
           "</ETag></Part>";
  out += "</CompleteMultipartUpload>";
  return out;
}

bool retryable_status(int status) {
  return status == 0 || status == 408 || status == 429 || (status >= 500 && status <= 599);
}

std::chrono::milliseconds backoff_delay(int attempt, std::chrono::milliseconds base, std::chrono::milliseconds max,
                                        double unit) {
  if (attempt < 1) attempt = 1;
  auto d = base.count();
  for (int i = 1; i < attempt && d < max.count(); ++i) d *= 2;
  d = std::min<long long>(d, max.count());
  unit = std::clamp(unit, 0.0, 1.0);
  return std::chrono::milliseconds(d / 2 + static_cast<long long>(static_cast<double>(d - d / 2) * unit));
}

}  // namespace br::storage::s3
