// Reclone annotation validation (see reclone_token.hpp).
#include "actors/operator/decide/reclone_token.hpp"

#include <algorithm>
#include <cctype>

#include "actors/operator/decide/restore_freeze.hpp"
#include "actors/operator/decide/site_order.hpp"

namespace br {

namespace {

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string strip_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!is_space(c)) out += c;
  return out;
}

bool iequal_prefix(std::string_view prefix, std::string_view text) {
  if (prefix.size() > text.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(prefix[i])) !=
        std::tolower(static_cast<unsigned char>(text[i])))
      return false;
  return true;
}

reclone_validation reject(std::string reason) {
  reclone_validation v;
  v.reason = std::move(reason);
  return v;
}

reclone_validation accept(std::string site, reclone_kind kind) {
  reclone_validation v;
  v.accepted = true;
  v.site = std::move(site);
  v.kind = kind;
  return v;
}

}  // namespace

reclone_validation validate_reclone_token(std::string_view annotation, const std::string& group,
                                          const std::vector<std::string>& sites,
                                          const std::map<std::string, std::string>& divergent_gtid,
                                          const std::string& active_site,
                                          const restore_freeze_record& restore) {
  auto value = trim(annotation);
  if (value.empty())
    return reject(
        "reclone-site annotation is empty; expected <site>:<divergentGtid prefix> or "
        "<site>:confirm=<group>");
  auto colon = value.find(':');
  bool bare = colon == std::string_view::npos;
  std::string site(trim(value.substr(0, colon)));
  if (site.empty()) return reject("reclone-site annotation names no site");
  if (std::find(sites.begin(), sites.end(), site) == sites.end())
    return reject("unknown site \"" + site + "\" (sites: " + join_names(sites) + ")");
  if (site == active_site)
    return reject("refusing to reclone " + site + ": it is the active primary");
  if (active_site.empty())
    return reject("the group has no active primary to clone " + site + " from");
  std::string recorded;
  if (auto it = divergent_gtid.find(site); it != divergent_gtid.end())
    recorded = strip_spaces(it->second);
  if (bare) {
    if (!recorded.empty())
      return reject("bare site form is not accepted: " + site +
                    " has a recorded divergentGtid; annotate " + site +
                    ":<first 8+ characters of its divergentGtid>");
    return reject("bare site form is not accepted for a cold reclone; annotate " + site +
                  ":confirm=" + group);
  }
  auto token = trim(value.substr(colon + 1));
  if (token.empty()) return reject("empty confirmation token after \"" + site + ":\"");
  constexpr std::string_view restore_form = "restore=";
  if (token.substr(0, restore_form.size()) == restore_form) {
    std::string named(trim(token.substr(restore_form.size())));
    if (restore.token.empty() || named != restore.token)
      return reject("restore token \"" + named + "\" is not the in-place restore recorded last (" +
                    (restore.token.empty() ? std::string("none") : restore.token) + ")");
    if (restore.frozen)
      return reject("the in-place restore of token " + named + " has not ended (the group is frozen)");
    // Abandoned (a Failed restore lifted by a person): its target may be half loaded; cloning it
    // would release a site onto that data. A newer confirm restores the target first.
    if (restore_pending(restore, restore.site))
      return reject("the in-place restore of token " + named + " failed and was lifted; " + restore.site +
                    " may be half loaded: restore it again (a newer confirm) before recloning from it");
    if (site == restore.site) return reject(site + " is the restored site");
    if (std::find(restore.recloned.begin(), restore.recloned.end(), site) != restore.recloned.end())
      return reject(site + " was already recloned for the in-place restore of token " + named);
    return accept(site, reclone_kind::restore_token);
  }
  constexpr std::string_view confirm = "confirm=";
  if (token.substr(0, confirm.size()) == confirm) {
    auto named = trim(token.substr(confirm.size()));
    if (!recorded.empty())
      return reject("cold reclone confirmation refused: " + site +
                    " has a recorded divergentGtid; annotate " + site +
                    ":<first 8+ characters of its divergentGtid>");
    if (named != group)
      return reject("confirm token names group \"" + std::string(named) + "\", expected \"" +
                    group + "\"");
    return accept(site, reclone_kind::cold_confirm);
  }
  auto prefix = strip_spaces(token);
  if (recorded.empty())
    return reject(site + " has no recorded divergentGtid; for a cold reclone annotate " + site +
                  ":confirm=" + group);
  if (prefix.size() < reclone_min_prefix)
    return reject("divergentGtid prefix too short: " + std::to_string(prefix.size()) +
                  " characters, at least " + std::to_string(reclone_min_prefix) + " required");
  if (!iequal_prefix(prefix, recorded))
    return reject("prefix \"" + prefix + "\" does not match the recorded divergentGtid of " + site);
  return accept(site, reclone_kind::divergent_prefix);
}

}  // namespace br
