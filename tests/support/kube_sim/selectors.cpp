// Label/field selector grammar: comma-separated requirements; set-based terms use parentheses.
#include "tests/support/kube_sim/selectors.hpp"

#include <algorithm>
#include <cctype>

namespace br::kube_sim {

namespace {

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

// Splits on commas that are not inside parentheses ("a in (x,y),b" -> two terms).
std::vector<std::string> split_terms(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur.push_back(c);
  }
  if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
  return out;
}

bool valid_key(const std::string& k) {
  if (k.empty()) return false;
  return std::all_of(k.begin(), k.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/';
  });
}

bool valid_value(const std::string& v) {
  return std::all_of(v.begin(), v.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.';
  });
}

std::optional<label_requirement> parse_set_term(const std::string& term, std::string& error) {
  // "key in (a,b)" / "key notin (a,b)"
  auto open = term.find('(');
  auto close = term.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open ||
      close != term.size() - 1) {
    error = "invalid selector term: " + term;
    return std::nullopt;
  }
  std::string head = trim(term.substr(0, open));
  label_requirement r;
  auto space = head.find_last_of(" \t");
  if (space == std::string::npos) {
    error = "invalid selector term: " + term;
    return std::nullopt;
  }
  std::string word = trim(head.substr(space + 1));
  r.key = trim(head.substr(0, space));
  if (word == "in") {
    r.kind = label_requirement::op::in;
  } else if (word == "notin") {
    r.kind = label_requirement::op::not_in;
  } else {
    error = "invalid selector operator: " + word;
    return std::nullopt;
  }
  std::string inner = term.substr(open + 1, close - open - 1);
  std::string cur;
  for (char c : inner + ",") {
    if (c == ',') {
      auto v = trim(cur);
      if (!valid_value(v)) {
        error = "invalid label value: " + v;
        return std::nullopt;
      }
      r.values.push_back(v);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!valid_key(r.key)) {
    error = "invalid label key: " + r.key;
    return std::nullopt;
  }
  return r;
}

}  // namespace

std::optional<label_selector> parse_label_selector(const std::string& text, std::string& error) {
  label_selector sel;
  if (trim(text).empty()) return sel;
  for (const auto& term : split_terms(text)) {
    if (term.empty()) {
      error = "empty selector term";
      return std::nullopt;
    }
    label_requirement r;
    if (term.find('(') != std::string::npos) {
      auto set = parse_set_term(term, error);
      if (!set) return std::nullopt;
      sel.requirements.push_back(std::move(*set));
      continue;
    }
    if (auto p = term.find("!="); p != std::string::npos) {
      r.kind = label_requirement::op::not_equals;
      r.key = trim(term.substr(0, p));
      r.values = {trim(term.substr(p + 2))};
    } else if (auto q = term.find("=="); q != std::string::npos) {
      r.kind = label_requirement::op::equals;
      r.key = trim(term.substr(0, q));
      r.values = {trim(term.substr(q + 2))};
    } else if (auto e = term.find('='); e != std::string::npos) {
      r.kind = label_requirement::op::equals;
      r.key = trim(term.substr(0, e));
      r.values = {trim(term.substr(e + 1))};
    } else if (term.front() == '!') {
      r.kind = label_requirement::op::not_exists;
      r.key = trim(term.substr(1));
    } else {
      r.kind = label_requirement::op::exists;
      r.key = term;
    }
    if (!valid_key(r.key)) {
      error = "invalid label key: " + r.key;
      return std::nullopt;
    }
    for (const auto& v : r.values) {
      if (!valid_value(v)) {
        error = "invalid label value: " + v;
        return std::nullopt;
      }
    }
    sel.requirements.push_back(std::move(r));
  }
  return sel;
}

bool label_selector::matches(const nlohmann::json& labels) const {
  for (const auto& r : requirements) {
    const bool has = labels.is_object() && labels.contains(r.key) && labels[r.key].is_string();
    const std::string value = has ? labels[r.key].get<std::string>() : std::string{};
    const bool in_set = has && std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    switch (r.kind) {
      case label_requirement::op::equals:
      case label_requirement::op::in:
        if (!in_set) return false;
        break;
      case label_requirement::op::not_equals:
      case label_requirement::op::not_in:
        if (in_set) return false;  // a missing label satisfies != and notin
        break;
      case label_requirement::op::exists:
        if (!has) return false;
        break;
      case label_requirement::op::not_exists:
        if (has) return false;
        break;
    }
  }
  return true;
}

std::optional<field_selector> parse_field_selector(const std::string& text, std::string& error) {
  field_selector sel;
  if (trim(text).empty()) return sel;
  for (const auto& term : split_terms(text)) {
    field_selector::term t;
    std::size_t p;
    if ((p = term.find("!=")) != std::string::npos) {
      t.negate = true;
      t.field = trim(term.substr(0, p));
      t.value = trim(term.substr(p + 2));
    } else if ((p = term.find("==")) != std::string::npos) {
      t.field = trim(term.substr(0, p));
      t.value = trim(term.substr(p + 2));
    } else if ((p = term.find('=')) != std::string::npos) {
      t.field = trim(term.substr(0, p));
      t.value = trim(term.substr(p + 1));
    } else {
      error = "invalid field selector term: " + term;
      return std::nullopt;
    }
    if (t.field != "metadata.name" && t.field != "metadata.namespace") {
      error = "field label not supported: " + t.field;
      return std::nullopt;
    }
    sel.terms.push_back(std::move(t));
  }
  return sel;
}

bool field_selector::matches(const nlohmann::json& object) const {
  for (const auto& t : terms) {
    const auto& md = object.value("metadata", nlohmann::json::object());
    const std::string key = t.field == "metadata.name" ? "name" : "namespace";
    const std::string actual = md.value(key, std::string{});
    if ((actual == t.value) == t.negate) return false;
  }
  return true;
}

}  // namespace br::kube_sim
