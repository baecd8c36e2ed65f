// Keeps the MysqlFailoverGroup CRD (schema, CEL rules, defaults) and the operator's own
// validation in step, driven by tests/unit/crd_rules.json (see its _comment).
#include <boost/test/unit_test.hpp>
#include <map>
#include <regex>
#include <set>

#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "config/yaml_json.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using json = nlohmann::json;
using namespace br::config;

namespace {

const char* crd_path = "charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml";

json load_crd() {
  field_errors errs;
  auto crd = yaml_to_json(config_spec_test::read_source_file(crd_path), errs);
  BOOST_TEST_REQUIRE(errs.empty(), to_string(errs));
  return crd;
}

const json& root_schema(const json& crd) {
  return crd.at("spec").at("versions").at(0).at("schema").at("openAPIV3Schema");
}

json load_rules() {
  return json::parse(config_spec_test::read_source_file("tests/unit/crd_rules.json"));
}

/// "spec.sites[].name" -> the schema node, or null.
const json* schema_at(const json& root, const std::string& path) {
  const json* node = &root;
  std::size_t pos = 0;
  while (pos <= path.size()) {
    auto dot = path.find('.', pos);
    std::string seg = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    bool items = seg.ends_with("[]");
    if (items) seg.resize(seg.size() - 2);
    if (!node->contains("properties") || !node->at("properties").contains(seg)) return nullptr;
    node = &node->at("properties").at(seg);
    if (items) {
      if (!node->contains("items")) return nullptr;
      node = &node->at("items");
    }
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  return node;
}

void collect_rules(const json& node, const std::string& where,
                   std::map<std::string, std::string>& out) {
  if (!node.is_object()) return;
  if (node.contains("x-kubernetes-validations"))
    for (const auto& r : node["x-kubernetes-validations"]) {
      std::string msg = r.at("message");
      BOOST_TEST(!out.contains(msg), "two CEL rules share the message " << msg);
      out[msg] = where;
    }
  if (node.contains("properties"))
    for (const auto& [k, v] : node["properties"].items()) collect_rules(v, where + "." + k, out);
  if (node.contains("items")) collect_rules(node["items"], where + "[]", out);
}

/// Whether the CEL rule with this message is a transition rule (it names oldSelf: checked only on
/// updates, so no stateless validation row can mirror it).
bool is_transition_rule(const json& node, const std::string& msg) {
  if (!node.is_object()) return false;
  if (node.contains("x-kubernetes-validations"))
    for (const auto& r : node["x-kubernetes-validations"])
      if (r.at("message") == msg) return r.at("rule").get<std::string>().find("oldSelf") != std::string::npos;
  bool found = false;
  if (node.contains("properties"))
    for (const auto& [k, v] : node["properties"].items()) found = found || is_transition_rule(v, msg);
  if (node.contains("items")) found = found || is_transition_rule(node["items"], msg);
  return found;
}

/// Rows of config_spec_validate_test.cpp's rule table: name -> mode letter.
std::map<std::string, char> validation_rows() {
  auto src = config_spec_test::read_source_file("tests/unit/config_spec_validate_test.cpp");
  auto start = src.find("every_rule_reports_its_path");
  BOOST_TEST_REQUIRE(start != std::string::npos);
  auto end = src.find("BOOST_AUTO_TEST_CASE", start);
  std::string table = src.substr(start, end - start);
  std::map<std::string, char> rows;
  std::regex row{R"re(\{"([^"]+)",\s*([KS]),)re"};
  for (std::sregex_iterator it{table.begin(), table.end(), row}, e; it != e; ++it) {
    BOOST_TEST(!rows.contains((*it)[1].str()), "duplicate row name " << (*it)[1].str());
    rows[(*it)[1].str()] = (*it)[2].str()[0];
  }
  BOOST_TEST_REQUIRE(rows.size() > 50u, "row parser found only " << rows.size() << " rows");
  return rows;
}

json apply_edits(json doc, const json& edits) {
  for (const auto& e : edits) {
    if (e.contains("set")) {
      doc[json::json_pointer{e["set"].get<std::string>()}] = e.at("value");
    } else {
      json::json_pointer p{e.at("remove").get<std::string>()};
      doc.at(p.parent_pointer()).erase(p.back());
    }
  }
  return doc;
}

/// What the API server's defaulting does: absent properties with a default get it, recursively.
int apply_defaults(const json& schema, json& value) {
  int added = 0;
  if (value.is_object() && schema.contains("properties")) {
    for (const auto& [k, sub] : schema["properties"].items()) {
      if (!value.contains(k) && sub.contains("default")) {
        value[k] = sub["default"];
        ++added;
      }
      if (value.contains(k)) added += apply_defaults(sub, value[k]);
    }
  } else if (value.is_array() && schema.contains("items")) {
    for (auto& v : value) added += apply_defaults(schema["items"], v);
  }
  return added;
}

/// Structural schema: every node has a type (or preserves unknown fields), objects say what
/// they hold.
void check_structural(const json& node, const std::string& where) {
  bool preserve = node.value("x-kubernetes-preserve-unknown-fields", false);
  BOOST_TEST((node.contains("type") || preserve), where << " has no type");
  if (node.value("type", "") == "object")
    BOOST_TEST((node.contains("properties") || node.contains("additionalProperties") || preserve ||
                where == ".metadata"),
               where << " is an object without properties");
  if (node.value("type", "") == "array")
    BOOST_TEST(node.contains("items"), where << " has no items");
  if (node.contains("properties"))
    for (const auto& [k, v] : node["properties"].items()) check_structural(v, where + "." + k);
  if (node.contains("items")) check_structural(node["items"], where + "[]");
  if (node.contains("additionalProperties") && node["additionalProperties"].is_object())
    check_structural(node["additionalProperties"], where + ".*");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(crd_sync)

BOOST_AUTO_TEST_CASE(crd_identity_and_printer_columns) {
  auto crd = load_crd();
  BOOST_TEST(crd["metadata"]["name"] == "mysqlfailovergroups.shipstream.io");
  BOOST_TEST(crd["spec"]["scope"] == "Namespaced");
  BOOST_TEST(crd["spec"]["names"]["kind"] == std::string{group_kind});
  BOOST_TEST(crd["spec"]["names"]["shortNames"] == json::array({"mfg"}));
  const auto& v = crd["spec"]["versions"][0];
  BOOST_TEST(crd["spec"]["group"].get<std::string>() + "/" + v["name"].get<std::string>() ==
             std::string{group_api_version});
  BOOST_TEST(v["subresources"].contains("status"));
  std::vector<std::string> cols;
  for (const auto& c : v["additionalPrinterColumns"]) cols.push_back(c["name"]);
  BOOST_TEST((cols == std::vector<std::string>{"Active", "Ready", "Age"}));
  check_structural(root_schema(crd), "");
}

BOOST_AUTO_TEST_CASE(every_validation_rule_is_classified_and_every_cel_rule_is_used) {
  auto crd = load_crd();
  const auto& schema = root_schema(crd);
  auto rules = load_rules();
  auto rows = validation_rows();
  std::map<std::string, std::string> cel;  // message -> schema location
  collect_rules(schema, "", cel);
  BOOST_TEST_REQUIRE(cel.size() >= 5u);

  for (const auto& [name, mode] : rows)
    BOOST_TEST(rules["rows"].contains(name),
               "operator rule row \"" << name << "\" is not classified in crd_rules.json");
  std::set<std::string> cel_in_rows, cel_in_cases;
  for (const auto& [name, cls_json] : rules["rows"].items()) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(rows.contains(name), "classified row no longer exists in the validation test");
      std::string cls = cls_json;
      // Standalone-mode rows may still state a mode-independent rule (e.g. the site count).
      if (cls == "standalone") BOOST_TEST(rows[name] == 'S', "not a standalone-mode row");
      if (cls.starts_with("cel:")) {
        auto msg = cls.substr(4);
        BOOST_TEST(cel.contains(msg), "no CEL rule with message: " << msg);
        cel_in_rows.insert(msg);
      } else if (cls.starts_with("schema:")) {
        auto rest = cls.substr(7);
        auto colon = rest.find(':');
        BOOST_TEST_REQUIRE(colon != std::string::npos);
        std::string path = rest.substr(0, colon), kw = rest.substr(colon + 1), want;
        char op = 0;
        if (auto p = kw.find_first_of("=~"); p != std::string::npos) {
          op = kw[p];
          want = kw.substr(p + 1);
          kw.resize(p);
        }
        const json* node = schema_at(schema, path);
        BOOST_TEST_REQUIRE(node != nullptr, "no schema at " << path);
        BOOST_TEST_REQUIRE(node->contains(kw), path << " has no " << kw);
        if (op == '=') BOOST_TEST(node->at(kw) == json::parse(want), path << " " << kw);
        if (op == '~') {
          const auto& req = node->at(kw);
          BOOST_TEST((std::find(req.begin(), req.end(), json(want)) != req.end()),
                     path << " does not require " << want);
        }
      } else if (cls.starts_with("absent:")) {
        auto path = cls.substr(7);
        BOOST_TEST(schema_at(schema, path) == nullptr, path << " is in the CRD");
        BOOST_TEST(schema_at(schema, path.substr(0, path.rfind('.'))) != nullptr);
      } else {
        BOOST_TEST((cls == "valid" || cls == "standalone" || cls.starts_with("operator:") ||
                    cls.starts_with("apiserver:")),
                   "unknown classification " << cls);
      }
    }
  }
  for (const auto& c : rules["cases"])
    for (const auto& m : c["cel"]) cel_in_cases.insert(m.get<std::string>());
  // Transition rules (immutability) are enforced by the operator against its durable state, not
  // by stateless validation: each names where in "transitions" and has an update case.
  std::set<std::string> in_transition_cases;
  for (const auto& c : rules.value("transitionCases", json::array()))
    for (const auto& m : c["cel"]) in_transition_cases.insert(m.get<std::string>());
  for (const auto& [msg, where] : cel) {
    if (is_transition_rule(schema, msg)) {
      BOOST_TEST((rules.contains("transitions") && rules["transitions"].contains(msg) &&
                  rules["transitions"][msg].get<std::string>().starts_with("operator:")),
                 "transition rule at " << where << " (" << msg
                                       << ") has no operator: entry in crd_rules.json transitions");
      BOOST_TEST(in_transition_cases.contains(msg), "transition rule (" << msg << ") has no update case");
      continue;
    }
    BOOST_TEST(cel_in_rows.contains(msg),
               "CEL rule at " << where << " (" << msg << ") mirrors no operator validation row");
    BOOST_TEST(cel_in_cases.contains(msg), "CEL rule (" << msg << ") has no case");
  }
}

BOOST_AUTO_TEST_CASE(operator_agrees_with_every_case) {
  auto rules = load_rules();
  for (const auto& c : rules["cases"]) {
    BOOST_TEST_CONTEXT(c["name"].get<std::string>()) {
      auto doc = apply_edits(rules["base"], c["edits"]);
      auto res = parse_group(doc);
      auto more = validate(res.group, run_mode::kubernetes);
      res.errors.insert(res.errors.end(), more.begin(), more.end());
      std::set<std::string> got, want;
      for (const auto& e : res.errors) got.insert(e.path);
      for (const auto& p : c["operator"]) want.insert(p.get<std::string>());
      BOOST_TEST((got == want), to_string(res.errors));
      // A case the operator rejects must be rejected by at least one CEL rule, and vice versa.
      BOOST_TEST(c["cel"].empty() == want.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(crd_defaults_equal_operator_defaults) {
  auto crd = load_crd();
  auto rules = load_rules();
  json doc = rules["base"];
  doc["spec"]["credentials"] = {{"operatorSecret", "op"}};
  doc["spec"].erase("secretName");
  doc["spec"]["dragonfly"] = {{"auth", {{"secretName", "df"}}}};
  json defaulted = doc;
  int added = apply_defaults(root_schema(crd), defaulted);
  BOOST_TEST(added >= 25, "only " << added << " defaults applied");
  auto plain = parse_group(doc);
  auto with_defaults = parse_group(defaulted);
  BOOST_TEST_REQUIRE(plain.ok(), to_string(plain.errors));
  BOOST_TEST_REQUIRE(with_defaults.ok(), to_string(with_defaults.errors));
  BOOST_TEST(to_json(with_defaults.group.spec).dump(2) == to_json(plain.group.spec).dump(2));
}

BOOST_AUTO_TEST_CASE(example_group_is_valid) {
  auto res = load_group_yaml(config_spec_test::read_source_file("deploy/examples/group.yaml"),
                             run_mode::kubernetes);
  BOOST_TEST(res.ok(), to_string(res.errors));
}

BOOST_AUTO_TEST_SUITE_END()
