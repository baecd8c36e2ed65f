// S3 client pure parts: endpoint/addressing style, canonical encoding, bounded XML reading of
// hostile or broken answers, retry classification and backoff bounds.
#include <boost/test/unit_test.hpp>

#include "io/codec/url.hpp"
#include "io/storage/s3_request.hpp"

using namespace br::storage::s3;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(s3_request_suite)

BOOST_AUTO_TEST_CASE(endpoints_and_addressing_style) {
  struct row {
    std::string url, region;
    bool force;
    bool ok;
    std::string scheme, host, port;
    bool path_style;
  };
  std::vector<row> rows = {
      {"", "eu-west-3", false, true, "https", "s3.eu-west-3.amazonaws.com", "", false},
      {"", "us-east-1", true, true, "https", "s3.us-east-1.amazonaws.com", "", true},
      {"http://127.0.0.1:34151", "us-east-1", false, true, "http", "127.0.0.1", "34151", true},
      {"http://localhost:9000/", "us-east-1", false, true, "http", "localhost", "9000", true},
      {"http://[::1]:9000", "us-east-1", false, true, "http", "[::1]", "9000", true},
      {"https://MinIO.example.com", "us-east-1", false, true, "https", "minio.example.com", "", false},
      {"https://minio.example.com", "us-east-1", true, true, "https", "minio.example.com", "", true},
      {"http://1.2.3.4.5", "us-east-1", false, true, "http", "1.2.3.4.5", "", false},
      {"ftp://x", "us-east-1", false, false, "", "", "", false},
      {"minio:9000", "us-east-1", false, false, "", "", "", false},
      {"http://", "us-east-1", false, false, "", "", "", false},
      {"http://h:0", "us-east-1", false, false, "", "", "", false},
      {"http://h:99999", "us-east-1", false, false, "", "", "", false},
      {"http://h:12a", "us-east-1", false, false, "", "", "", false},
      {"http://u@h", "us-east-1", false, false, "", "", "", false},
      {"http://h/path", "us-east-1", false, false, "", "", "", false},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("url '" << r.url << "'") {
      auto ep = resolve_endpoint(r.url, r.region, r.force);
      BOOST_TEST(ep.has_value() == r.ok);
      if (!ep || !r.ok) continue;
      BOOST_TEST(ep->scheme == r.scheme);
      BOOST_TEST(ep->host == r.host);
      BOOST_TEST(ep->port == r.port);
      BOOST_TEST(ep->path_style == r.path_style);
    }
  }
}

BOOST_AUTO_TEST_CASE(urls_are_canonically_encoded) {
  auto path = *resolve_endpoint("http://127.0.0.1:9000", "us-east-1", false);
  auto vhost = *resolve_endpoint("https://s3.example.com", "us-east-1", false);
  BOOST_TEST(object_url(path, "bkt", "p/binlogs/a/binlog.000001") == "http://127.0.0.1:9000/bkt/p/binlogs/a/binlog.000001");
  BOOST_TEST(object_url(vhost, "bkt", "p/x y+z~é") == "https://bkt.s3.example.com/p/x%20y%2Bz~%C3%A9");
  BOOST_TEST(object_url(path, "bkt", "") == "http://127.0.0.1:9000/bkt/");
  BOOST_TEST(object_url(vhost, "bkt", "") == "https://bkt.s3.example.com/");
  // Sorted by key, values encoded (a continuation token holds '/', '+' and '='), empty value kept.
  BOOST_TEST(object_url(path, "bkt", "", {{"prefix", "a/b"}, {"list-type", "2"}, {"continuation-token", "x/y+z=="}}) ==
             "http://127.0.0.1:9000/bkt/?continuation-token=x%2Fy%2Bz%3D%3D&list-type=2&prefix=a%2Fb");
  BOOST_TEST(object_url(path, "bkt", "k", {{"uploads", ""}}) == "http://127.0.0.1:9000/bkt/k?uploads=");
  BOOST_TEST(canonical_query({{"uploadId", "A B"}, {"partNumber", "10"}}) == "partNumber=10&uploadId=A%20B");
  BOOST_TEST(br::url_escape("a/b", false) == "a%2Fb");
  BOOST_TEST(br::url_escape("AZaz09-._~", false) == "AZaz09-._~");
}

BOOST_AUTO_TEST_CASE(list_pages) {
  auto page = parse_list_page(
      "<?xml version=\"1.0\"?><ListBucketResult><Name>b</Name><IsTruncated>true</IsTruncated>"
      "<Contents><Key>p/a&amp;b</Key><Size>12</Size></Contents>"
      "<Contents><Key>p/&#x3C;c&#62;</Key><Size>0</Size></Contents>"
      "<NextContinuationToken>tok/+=</NextContinuationToken></ListBucketResult>");
  BOOST_TEST(page.error == "");
  BOOST_REQUIRE(page.items.size() == 2u);
  BOOST_TEST(page.items[0].key == "p/a&b");
  BOOST_TEST(page.items[0].size == 12u);
  BOOST_TEST(page.items[1].key == "p/<c>");
  BOOST_TEST(page.truncated);
  BOOST_TEST(page.next_token == "tok/+=");

  auto last = parse_list_page("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  BOOST_TEST(last.error == "");
  BOOST_TEST(!last.truncated);
  BOOST_TEST(last.items.empty());
}

// Whatever a peer sends: an error or an empty page, never a crash or a wrong key.
BOOST_AUTO_TEST_CASE(garbage_is_refused) {
  std::vector<std::string> bad = {
      "",
      "garbage",
      "<ListBucketResult><Contents><Key>a</Key>",  // unterminated
      "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>",
      "<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents></ListBucketResult>",
      "<ListBucketResult><Contents><Key>a</Key><Size>99999999999999999999999</Size></Contents></ListBucketResult>",
      "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",  // no token
      std::string(100000, '<'),
  };
  for (const auto& doc : bad) {
    BOOST_TEST_CONTEXT("doc '" << doc.substr(0, 60) << "'") {
      auto p = parse_list_page(doc);
      BOOST_TEST(p.error != "");
    }
  }
  BOOST_TEST(xml_unescape("&#xFFFFFFFFFF; &bogus; & &#; &#x;") == "&#xFFFFFFFFFF; &bogus; & &#; &#x;");
  BOOST_TEST(xml_unescape("&#65;&#x42;&lt;") == "AB<");
  BOOST_TEST(xml_all("<a>1</a><a>2</a><a>3", "a").size() == 2u);
  BOOST_TEST(xml_all(std::string(10000, 'x') + "<a>1</a><a>2</a>", "a", 1).size() == 1u);
}

BOOST_AUTO_TEST_CASE(error_documents) {
  BOOST_TEST(error_summary("<Error><Code>SignatureDoesNotMatch</Code><Message>m</Message></Error>") ==
             "SignatureDoesNotMatch: m");
  BOOST_TEST(error_summary("<Error><Code>NoSuchKey</Code></Error>") == "NoSuchKey");
  BOOST_TEST(error_summary("<ListBucketResult/>") == "");
  BOOST_TEST(error_summary("<Error><Code>X</Code><Message>" + std::string(1000, 'm') + "\n</Message></Error>").size() <
             310u);
  BOOST_TEST(complete_multipart_body({"\"e1\"", "\"e2\""}) ==
             "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&quot;e1&quot;</ETag></Part>"
             "<Part><PartNumber>2</PartNumber><ETag>&quot;e2&quot;</ETag></Part></CompleteMultipartUpload>");
}

BOOST_AUTO_TEST_CASE(retries_and_backoff) {
  for (int s : {0, 408, 429, 500, 502, 503, 504}) BOOST_TEST(retryable_status(s), s);
  for (int s : {200, 204, 301, 400, 403, 404, 409, 411}) BOOST_TEST(!retryable_status(s), s);
  // Doubles from the base, capped, jittered within [d/2, d].
  BOOST_TEST(backoff_delay(1, 200ms, 10s, 0.0).count() == 100);
  BOOST_TEST(backoff_delay(1, 200ms, 10s, 0.999).count() <= 200);
  BOOST_TEST(backoff_delay(3, 200ms, 10s, 1.0).count() == 800);
  BOOST_TEST(backoff_delay(30, 200ms, 10s, 1.0).count() == 10000);
  BOOST_TEST(backoff_delay(30, 200ms, 10s, 0.0).count() == 5000);
  BOOST_TEST(backoff_delay(1000000, 200ms, 10s, 0.5).count() <= 10000);
}

BOOST_AUTO_TEST_SUITE_END()
