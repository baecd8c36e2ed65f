// `bloodraven switchover` and `bloodraven reclone` (see admin_cli.hpp).
#include "actors/operator/local/admin_cli.hpp"

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "actors/common/key_dir.hpp"
#include "actors/operator/api/admin_request.hpp"
#include "actors/operator/decide/planned_failover.hpp"
#include "io/http/client.hpp"

namespace br {

namespace {

// Every command also takes --tls-ca-file F --tls-cert-file F --tls-key-file F: an https:// URL
// verified against F (CA and host name), the operator's client certificate presented (issue 26).
constexpr const char* tls_usage =
    "  with an https:// URL: --tls-ca-file F verifies the operator (CA and host name), and\n"
    "  --tls-cert-file F --tls-key-file F present the client certificate it requires.\n";

constexpr const char* switchover_usage =
    "usage: bloodraven switchover --operator URL --keys-dir DIR [--namespace NS] --group G\n"
    "       TARGET[:maxLagWait=DUR] | --cancel\n"
    "  planned failover: asks the operator at URL (e.g. http://127.0.0.1:8080) to hand group\n"
    "  NS/G over to site TARGET; the request is signed with DIR/operator.key. It waits until\n"
    "  TARGET has executed every transaction of the fenced primary (DUR, else\n"
    "  spec.plannedFailover.maxLagWait), or rolls back and keeps the primary. Inside the\n"
    "  anti-flap cooldown it is refused, or Deferred until the cooldown ends with\n"
    "  spec.plannedFailover.onCooldown=defer; --cancel cancels a Deferred request. The answer\n"
    "  says why a request is refused; GET /status shows plannedFailover.\n";

constexpr const char* reclone_usage =
    "usage: bloodraven reclone --operator URL --keys-dir DIR [--namespace NS] --group G TOKEN\n"
    "  asks the operator at URL to reclone a site of group NS/G from the active primary; the\n"
    "  request is signed with DIR/operator.key. TOKEN is what the reclone annotation takes:\n"
    "  SITE:<first 8+ characters of the site's recorded divergentGtid> (see GET /status), or\n"
    "  SITE:confirm=G for a site with no recorded divergence (a cold reclone). The site's data is\n"
    "  replaced by a CLONE of the primary; the active primary itself is never recloned.\n";

constexpr const char* fence_usage =
    "usage: bloodraven fence --operator URL --keys-dir DIR [--namespace NS] --group G on|off SITE\n"
    "  asks the operator at URL to fence SITE of group NS/G by hand (never a failover candidate,\n"
    "  out of the routing files, super_read_only stays ON), or to unfence it; the request is\n"
    "  signed with DIR/operator.key. Refused for the active primary (move the role first with\n"
    "  bloodraven switchover) and for the last failover candidate, with the reason.\n";

constexpr const char* recover_usage =
    "usage: bloodraven recover --operator URL --keys-dir DIR [--namespace NS] --group G ID@DIGEST\n"
    "  asks the operator at URL for the guarded quorum recovery of Group Replication group NS/G\n"
    "  (Blocked by a quorum loss); the request is signed with DIR/operator.key. DIGEST is\n"
    "  groupReplication.recoveryPlan.digest of GET /status: the plan you read and confirm (the\n"
    "  survivor, what each other member may lose). The operator computes the plan again and\n"
    "  refuses when its digest differs. Forcing a membership while the members it leaves out are\n"
    "  in fact running as a majority of their own makes a second group: make sure they are down.\n";

}  // namespace

int run_admin_cli(int argc, char** argv) {
  const std::string cmd = argc >= 2 ? argv[1] : "";
  const admin_action action = cmd == "reclone"   ? admin_action::reclone
                              : cmd == "fence"   ? admin_action::fence
                              : cmd == "recover" ? admin_action::recover
                                                 : admin_action::switchover;
  const char* usage = action == admin_action::reclone   ? reclone_usage
                      : action == admin_action::fence   ? fence_usage
                      : action == admin_action::recover ? recover_usage
                                                        : switchover_usage;
  const std::string who = "bloodraven " + cmd;
  std::map<std::string, std::string> opt{{"--namespace", "default"}};
  std::string argument;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(usage, stdout);
      std::fputs(tls_usage, stdout);
      return 0;
    }
    if (a == "--cancel" && action == admin_action::switchover && argument.empty()) {
      argument = planned_cancel_value;
      continue;
    }
    if (a.rfind("--", 0) == 0) {
      if (i + 1 >= argc || (a != "--operator" && a != "--keys-dir" && a != "--namespace" &&
                            a != "--group" && a != "--tls-ca-file" && a != "--tls-cert-file" &&
                            a != "--tls-key-file")) {
        std::fprintf(stderr, "%s: unknown or incomplete option %s\n%s", who.c_str(), a.c_str(), usage);
        return 2;
      }
      opt[a] = argv[++i];
    } else if (argument.empty()) {
      argument = a;
    } else if (action == admin_action::fence && argument.find(':') == std::string::npos) {
      argument += ":" + a;  // fence on|off SITE -> "on:SITE"
    } else {
      std::fprintf(stderr, "%s: unexpected argument %s\n%s", who.c_str(), a.c_str(), usage);
      return 2;
    }
  }
  if (action == admin_action::fence && argument.rfind("on:", 0) != 0 &&
      argument.rfind("off:", 0) != 0) {
    std::fprintf(stderr, "%s: on or off, then the site\n%s", who.c_str(), usage);
    return 2;
  }
  if (argument.empty() || !opt.count("--operator") || !opt.count("--keys-dir") ||
      !opt.count("--group")) {
    std::fputs(usage, stderr);
    return 2;
  }
  auto keys = auth::load_operator_keys(opt["--keys-dir"], {});
  if (!keys.ring || !keys.ring->signer) {
    std::fprintf(stderr, "%s: %s\n", who.c_str(), keys.error.c_str());
    return 1;
  }
  auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  auto signed_body = sign_admin_request(action, *keys.ring->signer, opt["--namespace"],
                                        opt["--group"], argument, now_ms);
  http::client_request req;
  req.method = "POST";
  req.url = opt["--operator"] + "/admin/" + std::string(to_string(action));
  req.body = signed_body.body;
  req.headers = {{"Content-Type", "application/json"},
                 {std::string(auth::signature_header), signed_body.signature}};
  req.timeout = std::chrono::seconds(10);
  req.ca_file = opt["--tls-ca-file"];
  req.cert_file = opt["--tls-cert-file"];
  req.key_file = opt["--tls-key-file"];
  auto res = http::perform(req);
  if (res.error != http::client_error::none) {
    std::fprintf(stderr, "%s: %s: %s\n", who.c_str(), req.url.c_str(), res.message.c_str());
    return 1;
  }
  std::printf("%d %s\n", res.status, res.body.c_str());
  return res.status == 202 ? 0 : 1;
}

}  // namespace br
