// `bloodraven switchover` (see switchover_cli.hpp).
#include "actors/operator/local/switchover_cli.hpp"

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "actors/common/key_dir.hpp"
#include "actors/operator/api/admin_switchover.hpp"
#include "io/http/client.hpp"

namespace br {

namespace {

constexpr const char* usage =
    "usage: bloodraven switchover --operator URL --keys-dir DIR [--namespace NS] --group G TARGET\n"
    "  asks the operator at URL (e.g. http://127.0.0.1:8080) to hand group NS/G over to site\n"
    "  TARGET; the request is signed with DIR/operator.key. The switchover waits until TARGET\n"
    "  has executed every transaction of the fenced primary (spec.plannedFailover.maxLagWait),\n"
    "  or rolls back and keeps the primary.\n";

}  // namespace

int run_switchover_cli(int argc, char** argv) {
  std::map<std::string, std::string> opt{{"--namespace", "default"}};
  std::string target;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (a.rfind("--", 0) == 0) {
      if (i + 1 >= argc || (a != "--operator" && a != "--keys-dir" && a != "--namespace" &&
                            a != "--group")) {
        std::fprintf(stderr, "bloodraven switchover: unknown or incomplete option %s\n%s", a.c_str(), usage);
        return 2;
      }
      opt[a] = argv[++i];
    } else if (target.empty()) {
      target = a;
    } else {
      std::fprintf(stderr, "bloodraven switchover: unexpected argument %s\n%s", a.c_str(), usage);
      return 2;
    }
  }
  if (target.empty() || !opt.count("--operator") || !opt.count("--keys-dir") || !opt.count("--group")) {
    std::fputs(usage, stderr);
    return 2;
  }
  auto keys = auth::load_operator_keys(opt["--keys-dir"], {});
  if (!keys.ring || !keys.ring->signer) {
    std::fprintf(stderr, "bloodraven switchover: %s\n", keys.error.c_str());
    return 1;
  }
  auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  auto signed_body = sign_admin_switchover(*keys.ring->signer, opt["--namespace"], opt["--group"],
                                           target, now_ms);
  http::client_request req;
  req.method = "POST";
  req.url = opt["--operator"] + "/admin/switchover";
  req.body = signed_body.body;
  req.headers = {{"Content-Type", "application/json"},
                 {std::string(auth::signature_header), signed_body.signature}};
  req.timeout = std::chrono::seconds(10);
  auto res = http::perform(req);
  if (res.error != http::client_error::none) {
    std::fprintf(stderr, "bloodraven switchover: %s: %s\n", req.url.c_str(), res.message.c_str());
    return 1;
  }
  std::printf("%d %s\n", res.status, res.body.c_str());
  return res.status == 202 ? 0 : 1;
}

}  // namespace br
