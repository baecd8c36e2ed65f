// Table tests of the raw-byte JSON shape check (io/codec/json_limits.hpp): size and nesting
// limits applied before any parser sees a network peer's body.
#include <boost/test/unit_test.hpp>

#include "io/codec/json_limits.hpp"

using namespace br;

namespace {

/// `depth` nested arrays: "[[...]]".
std::string nested(std::size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_limits_shape)

BOOST_AUTO_TEST_CASE(json_shape_problem_table) {
  const json_limits defaults{};
  BOOST_TEST(defaults.max_bytes == 16384u);
  BOOST_TEST(defaults.max_depth == 8u);
  struct row {
    const char* name;
    std::string body;
    std::string problem;  ///< "" = within the limits
  };
  std::vector<row> rows = {
      {"empty body", "", ""},
      {"flat object", R"({"site":"iad","epochSeen":3,"fenced":true})", ""},
      {"scalar", "42", ""},
      {"exactly the size limit", std::string(16384, ' '), ""},
      {"one byte over the size limit", std::string(16385, ' '),
       "body is 16385 bytes; at most 16384"},
      {"a huge body is refused before it is scanned", "[" + std::string(100000, '['),
       "body is 100001 bytes; at most 16384"},
      {"depth 8 arrays", nested(8), ""},
      {"depth 9 arrays", nested(9), "nesting deeper than 8 at byte 8"},
      {"depth 8 objects", R"({"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":1}}}}}}}})", ""},
      {"depth 9 objects", R"({"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":1}}}}}}}}})",
       "nesting deeper than 8 at byte 40"},
      {"mixed objects and arrays, depth 10", R"({"archiver":[{"x":[{"y":[{"z":[{"w":[1]}]}]}]}]})",
       "nesting deeper than 8 at byte 31"},
      {"siblings do not add up", nested(8) + "," + nested(8) + "," + nested(8), ""},
      {"brackets inside a string do not count", R"({"a":"[[[[[[[[[[{{{{{{{{{{"})", ""},
      {"escaped quote keeps the string open", R"({"a":"\"[[[[[[[[[[\""})", ""},
      {"escaped backslash closes the string",
       R"({"a":"\\"})" + nested(9), "nesting deeper than 8 at byte 18"},
      {"escaped backslash then quote inside", R"({"a":"\\\"[[[[[[[[[["})", ""},
      {"unbalanced closers are left to the parser", "]]]]]]]]]]}}}}}", ""},
      {"closers before openers buy no depth", "]]]]]]]]]]" + nested(9),
       "nesting deeper than 8 at byte 18"},
      {"unclosed openers within the limit are left to the parser", "{{{{{{{{", ""},
      {"unclosed openers beyond the limit", "{{{{{{{{{", "nesting deeper than 8 at byte 8"},
      {"an unterminated string hides what follows", "\"" + nested(20), ""},
  };
  for (const auto& r : rows)
    BOOST_TEST(json_shape_problem(r.body, defaults) == r.problem, r.name);
}

BOOST_AUTO_TEST_CASE(limits_are_parameters) {
  const json_limits tight{10, 2};
  BOOST_TEST(json_shape_problem("[[1]]", tight) == "");
  BOOST_TEST(json_shape_problem("[[[1]]]", tight) == "nesting deeper than 2 at byte 2");
  BOOST_TEST(json_shape_problem("[1,2,3,4,5]", tight) == "body is 11 bytes; at most 10");
  const json_limits deep{1u << 20, 64};
  BOOST_TEST(json_shape_problem(nested(64), deep) == "");
  BOOST_TEST(json_shape_problem(nested(65), deep) == "nesting deeper than 64 at byte 64");
}

BOOST_AUTO_TEST_SUITE_END()
