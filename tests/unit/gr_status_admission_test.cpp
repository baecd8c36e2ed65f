// The Group Replication status webhook's rules (decide/gr_status_admission.hpp, issue 23
// acceptance 3) as table tests: transitions of bootstrapped and groupName, the operator-only
// rule, async groups, and AdmissionReview parsing (malformed bodies never crash, are denied).
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/gr_status_admission.hpp"

using namespace br::gr;
using nlohmann::json;

namespace {

const std::string op = "system:serviceaccount:bloodraven-system:bloodraven";
const std::string other = "alice";
const std::string U = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
const std::string V = "4a22fb58-82db-22f2-af44-d91bb0530673";

/// A group of `mode` ("" = no mode: async) with status.groupReplication = `gr` (null: no
/// groupReplication) and a phase.
json group(const std::string& mode, const json& gr, const std::string& phase = "Running") {
  json o = {{"apiVersion", "shipstream.io/v1alpha1"},
            {"kind", "MysqlFailoverGroup"},
            {"metadata", {{"name", "g"}, {"namespace", "db"}}},
            {"spec", {{"replication", json::object()}}},
            {"status", {{"phase", phase}}}};
  if (!mode.empty()) o["spec"]["replication"]["mode"] = mode;
  if (!gr.is_null()) o["status"]["groupReplication"] = gr;
  return o;
}

json grs(const json& bootstrapped, const json& name) {
  json g = json::object();
  if (!bootstrapped.is_null()) g["bootstrapped"] = bootstrapped;
  if (!name.is_null()) g["groupName"] = name;
  return g;
}

struct row {
  const char* what;
  json before, after;
  std::string user;
  bool allowed;
  std::string message_part;  // "" = none expected
};

}  // namespace

BOOST_AUTO_TEST_CASE(status_transitions_table) {
  const std::string GR = "groupReplication";
  const json null;
  const std::vector<row> rows = {
      {"bootstrapped false->true by the operator", group(GR, grs(false, U)), group(GR, grs(true, U)),
       op, true, ""},
      {"bootstrapped absent->true", group(GR, grs(null, null)), group(GR, grs(true, U)), op, true, ""},
      {"bootstrapped true->true, other fields change", group(GR, grs(true, U), "Running"),
       group(GR, grs(true, U), "Degraded"), op, true, ""},
      {"bootstrapped true->false, operator", group(GR, grs(true, U)), group(GR, grs(false, U)), op,
       false, "bootstrapped may not go from true back to false"},
      {"bootstrapped true->absent, operator", group(GR, grs(true, U)), group(GR, grs(null, U)), op,
       false, "bootstrapped may not go from true back to false"},
      {"groupReplication removed after bootstrap", group(GR, grs(true, U)), group(GR, null), op,
       false, "bootstrapped may not go from true back"},
      {"whole status removed after bootstrap", group(GR, grs(true, U)),
       [] { auto o = group("groupReplication", nullptr); o.erase("status"); return o; }(), op, false,
       "groupName \"" + U + "\" may not be removed"},
      {"bootstrapped as a string is not true", group(GR, grs(true, U)), group(GR, grs("true", U)),
       op, false, "bootstrapped may not go"},
      {"groupName empty->value", group(GR, grs(false, "")), group(GR, grs(false, U)), op, true, ""},
      {"groupName absent->value", group(GR, grs(false, null)), group(GR, grs(false, U)), op, true, ""},
      {"groupName changed, operator", group(GR, grs(true, U)), group(GR, grs(true, V)), op, false,
       "groupName may not change from \"" + U + "\" to \"" + V + "\""},
      {"groupName removed, operator", group(GR, grs(true, U)), group(GR, grs(true, null)), op,
       false, "groupName \"" + U + "\" may not be removed"},
      {"groupName emptied, operator", group(GR, grs(true, U)), group(GR, grs(true, "")), op, false,
       "may not be removed"},
      {"another user changes a GR status", group(GR, grs(true, U), "Running"),
       group(GR, grs(true, U), "Degraded"), other, false,
       "only the operator (" + op + ") may change the status of a Group Replication group; user "
       "\"alice\" may not"},
      {"another user's legal-looking transition", group(GR, grs(false, null)),
       group(GR, grs(true, U)), other, false, "only the operator"},
      {"another user writes the same status", group(GR, grs(true, U)), group(GR, grs(true, U)),
       other, true, ""},
      {"empty user name is not the operator", group(GR, grs(false, U)), group(GR, grs(true, U)), "",
       false, "user \"\" may not"},
      {"both illegal transitions and a foreign user: all reasons", group(GR, grs(true, U)),
       group(GR, grs(false, V)), other, false, "bootstrapped may not go"},
      {"async group: another user flips bootstrapped back", group("async", grs(true, U)),
       group("async", grs(false, V)), other, true, ""},
      {"no mode (async default): anything", group("", grs(true, U)), group("", null), other, true,
       ""},
      {"GR on the new object only still judged", group("", grs(true, U)), group(GR, grs(true, V)),
       op, false, "groupName may not change"},
      {"old object not an object", json::array(), group(GR, grs(true, U)), op, false,
       "malformed AdmissionReview"},
      {"new object null", group(GR, grs(true, U)), null, op, false, "malformed AdmissionReview"},
      {"spec not an object: treated as async", [] { auto o = group("", nullptr); o["spec"] = 3; return o; }(),
       [] { auto o = group("", nullptr); o["spec"] = 3; return o; }(), other, true, ""},
      {"status.groupReplication of a wrong type: no name, not bootstrapped",
       group(GR, json("x")), group(GR, grs(true, U)), op, true, ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      const auto d = judge_status_write(r.before, r.after, r.user, op);
      BOOST_TEST(d.allowed == r.allowed);
      if (r.allowed) BOOST_TEST(d.message.empty());
      if (!r.message_part.empty())
        BOOST_TEST(d.message.find(r.message_part) != std::string::npos, d.message);
    }
  }
}

BOOST_AUTO_TEST_CASE(all_reasons_are_listed) {
  const auto d = judge_status_write(group("groupReplication", grs(true, U)),
                                    group("groupReplication", grs(false, V)), other, op);
  BOOST_TEST(!d.allowed);
  BOOST_TEST(d.message.find("bootstrapped may not go") != std::string::npos, d.message);
  BOOST_TEST(d.message.find("groupName may not change") != std::string::npos, d.message);
  BOOST_TEST(d.message.find("only the operator") != std::string::npos, d.message);
}

namespace {

json review(const json& old_object, const json& object, const std::string& user,
            const std::string& sub = "status", const std::string& operation = "UPDATE") {
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
            {"kind", {{"group", "shipstream.io"}, {"version", "v1alpha1"}, {"kind", "MysqlFailoverGroup"}}},
            {"resource",
             {{"group", "shipstream.io"}, {"version", "v1alpha1"}, {"resource", "mysqlfailovergroups"}}},
            {"subResource", sub},
            {"name", "g"},
            {"namespace", "db"},
            {"operation", operation},
            {"userInfo", {{"username", user}, {"groups", {"system:authenticated"}}}},
            {"object", object},
            {"oldObject", old_object},
            {"dryRun", false}}}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(review_allowed_and_denied) {
  const auto ok = review_status_admission(
      review(group("groupReplication", grs(false, U)), group("groupReplication", grs(true, U)), op).dump(), op);
  BOOST_TEST(ok.http_status == 200);
  BOOST_TEST(ok.body["apiVersion"] == "admission.k8s.io/v1");
  BOOST_TEST(ok.body["kind"] == "AdmissionReview");
  BOOST_TEST(ok.body["response"]["uid"] == "705ab4f5-6393-11e8-b7cc-42010a800002");
  BOOST_TEST(ok.body["response"]["allowed"] == true);
  BOOST_TEST(!ok.body["response"].contains("status"));

  const auto no = review_status_admission(
      review(group("groupReplication", grs(true, U)), group("groupReplication", grs(false, U)), op).dump(), op);
  BOOST_TEST(no.http_status == 200);
  BOOST_TEST(no.body["response"]["allowed"] == false);
  BOOST_TEST(no.body["response"]["status"]["code"] == 403);
  BOOST_TEST(no.body["response"]["status"]["reason"] == "Forbidden");
  BOOST_TEST(no.body["response"]["status"]["message"].get<std::string>().find("bootstrapped") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(review_malformed_table) {
  const json good = review(group("groupReplication", grs(false, U)), group("groupReplication", grs(true, U)), op);
  struct bad_row {
    const char* what;
    std::string body;
    int http_status;
    std::string message_part;
  };
  auto with = [&](const std::function<void(json&)>& edit) {
    json r = good;
    edit(r);
    return r.dump();
  };
  const std::vector<bad_row> rows = {
      {"empty body", "", 400, "not a JSON object"},
      {"not JSON", "{\"apiVersion\":", 400, "not a JSON object"},
      {"a JSON array", "[1,2]", 400, "not a JSON object"},
      {"deeply nested garbage", std::string(5000, '[') , 400, "not a JSON object"},
      {"v1beta1 review", with([](json& r) { r["apiVersion"] = "admission.k8s.io/v1beta1"; }), 400,
       "admission.k8s.io/v1"},
      {"wrong kind", with([](json& r) { r["kind"] = "Pod"; }), 400, "admission.k8s.io/v1"},
      {"no request", with([](json& r) { r.erase("request"); }), 400, "no request.uid"},
      {"request not an object", with([](json& r) { r["request"] = "x"; }), 400, "no request.uid"},
      {"uid a number", with([](json& r) { r["request"]["uid"] = 7; }), 400, "no request.uid"},
      {"empty uid", with([](json& r) { r["request"]["uid"] = ""; }), 400, "no request.uid"},
      {"main resource, not status", with([](json& r) { r["request"]["subResource"] = ""; }), 200,
       "judges only UPDATEs"},
      {"no subResource", with([](json& r) { r["request"].erase("subResource"); }), 200,
       "judges only UPDATEs"},
      {"CREATE", with([](json& r) { r["request"]["operation"] = "CREATE"; }), 200, "judges only UPDATEs"},
      {"another resource", with([](json& r) { r["request"]["resource"]["resource"] = "pods"; }), 200,
       "judges only UPDATEs"},
      {"another group", with([](json& r) { r["request"]["resource"]["group"] = "evil.io"; }), 200,
       "judges only UPDATEs"},
      {"resource not an object", with([](json& r) { r["request"]["resource"] = 1; }), 200,
       "judges only UPDATEs"},
      {"no userInfo", with([](json& r) { r["request"].erase("userInfo"); }), 200,
       "userInfo.username is missing"},
      {"username a number", with([](json& r) { r["request"]["userInfo"]["username"] = 1; }), 200,
       "userInfo.username is missing"},
      {"no oldObject", with([](json& r) { r["request"].erase("oldObject"); }), 200, "malformed"},
      {"object a string", with([](json& r) { r["request"]["object"] = "x"; }), 200, "malformed"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      const auto a = review_status_admission(r.body, op);
      BOOST_TEST(a.http_status == r.http_status);
      const std::string text = a.http_status == 200
                                   ? a.body["response"]["status"]["message"].get<std::string>()
                                   : a.body["error"].get<std::string>();
      BOOST_TEST(text.find(r.message_part) != std::string::npos, text);
      if (a.http_status == 200) {
        BOOST_TEST(a.body["response"]["allowed"] == false);
        BOOST_TEST(a.body["response"]["uid"] == good["request"]["uid"]);
      }
    }
  }
}
