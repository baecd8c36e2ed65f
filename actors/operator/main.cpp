// bloodraven: the operator binary (flags, then the shared process runtime).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>

#include <unistd.h>

#include "actors/common/runtime.hpp"
#include "actors/operator/group/group_supervisor.hpp"
#include "actors/operator/kube/kube_mode.hpp"
#include "actors/operator/kube/core/api_tls_plan.hpp"
#include "actors/operator/kube/core/operator_ca.hpp"
#include "actors/operator/kube/backup/pitr_catalogue.hpp"
#include "actors/operator/kube/backup/trigger_backup.hpp"
#include "actors/operator/kube/verify/trigger_verification.hpp"
#include "actors/common/lifetime_hook.hpp"
#include "actors/operator/local/local_mode.hpp"
#include "actors/operator/local/admin_cli.hpp"
#include "actors/operator/local/tls_certs_cli.hpp"
#include "actors/operator/local/backup_cli.hpp"
#include "actors/operator/api/operator_api.hpp"
#include "actors/operator/api/status_webhook.hpp"
#include "actors/operator/group/operator_metrics.hpp"
#include "actors/common/key_dir.hpp"
#include "config/duration_limits.hpp"
#include "config/process_flags.hpp"
#include "io/log/log.hpp"

namespace {

std::vector<br::config::flag_def> operator_flags() {
  using namespace br::config;
  std::vector<flag_def> defs{
      {"listen", "BLOODRAVEN_LISTEN", ":8082",
       "status API, health, metrics and actor inspection address", false, check_listen_address},
      {"metrics-listen", "BLOODRAVEN_METRICS_LISTEN", ":8080",
       "second address serving the same endpoints for Prometheus (empty: off)", false,
       [](const std::string& v) { return v.empty() ? std::string{} : check_listen_address(v); }},
      {"health-listen", "BLOODRAVEN_HEALTH_LISTEN", "",
       "liveness-only address (GET /livez) with its own small connection budget, so a flood of "
       "the other listeners cannot fail the liveness probe (empty: off; the chart uses :8081)",
       false,
       [](const std::string& v) { return v.empty() ? std::string{} : check_listen_address(v); }},
      {"log-level", "BLOODRAVEN_LOG_LEVEL", "info", "debug, info, warn or error", false,
       check_log_level},
      {"standalone", "BLOODRAVEN_STANDALONE", "",
       "run without Kubernetes, managing the group described in this YAML file", false, {}},
      {"state-dir", "BLOODRAVEN_STATE_DIR", "./bloodraven-state",
       "standalone: directory for the durable state, DNS/route files and events", false, {}},
      {"mysql-user", "BLOODRAVEN_MYSQL_USER", "",
       "standalone: the operator's MySQL account (password: --mysql-password-file, else "
       "BLOODRAVEN_MYSQL_PASSWORD)",
       false, {}},
      {"mysql-password-file", "BLOODRAVEN_MYSQL_PASSWORD_FILE", "",
       "standalone: file holding the operator's MySQL password (wins over "
       "BLOODRAVEN_MYSQL_PASSWORD)",
       false, {}},
      {"keys-dir", "BLOODRAVEN_KEYS_DIR", "",
       "standalone: directory with operator.key (signs views) and site-<site>.pub for every site "
       "(verifies acknowledgements and reports); `bloodraven keygen DIR SITE...` writes them; "
       "empty = <state-dir>/keys, created when missing",
       false, {}},
      {"namespace", "POD_NAMESPACE", "default", "namespace the operator runs in", false, {}},
      {"leader-elect", "BLOODRAVEN_LEADER_ELECT", "true", "use a Lease for leader election",
       false, check_bool},
      {"kubeconfig", "BLOODRAVEN_KUBECONFIG", "",
       "Kubernetes mode: kubeconfig file (empty: in-cluster, else $KUBECONFIG or ~/.kube/config)",
       false, {}},
      {"watch-namespaces", "BLOODRAVEN_WATCH_NAMESPACES", "",
       "Kubernetes mode: comma-separated namespaces to watch for groups (empty: all)", false, {}},
      {"pod-name", "POD_NAME", "",
       "Kubernetes mode: this pod's name, the Lease holder identity (empty: the host name)", false,
       {}},
      {"webhook-listen", "BLOODRAVEN_WEBHOOK_LISTEN", "",
       "Kubernetes mode: HTTPS address of the status admission webhook (POST /validate-status; "
       "empty: off; the chart uses :9443)",
       false,
       [](const std::string& v) { return v.empty() ? std::string{} : check_listen_address(v); }},
      {"webhook-cert-file", "BLOODRAVEN_WEBHOOK_CERT_FILE", "/etc/bloodraven/webhook/tls.crt",
       "Kubernetes mode: the webhook's PEM certificate chain (re-read when it changes)", false, {}},
      {"webhook-key-file", "BLOODRAVEN_WEBHOOK_KEY_FILE", "/etc/bloodraven/webhook/tls.key",
       "Kubernetes mode: the webhook's PEM private key", false, {}},
      {"webhook-ca-secret", "BLOODRAVEN_WEBHOOK_CA_SECRET", "",
       "Kubernetes mode: the operator generates the webhook's CA and serving certificate and keeps "
       "them in this Secret of its namespace (created when absent, the certificate re-issued "
       "before it expires), writes the pair to --webhook-cert-file/--webhook-key-file and keeps "
       "--webhook-configuration's caBundle equal to the CA (empty: the files are provided)",
       false, {}},
      {"webhook-service", "BLOODRAVEN_WEBHOOK_SERVICE", "bloodraven-webhook",
       "Kubernetes mode, with --webhook-ca-secret: the webhook's Service in the operator's "
       "namespace (the certificate names <service>, <service>.<namespace>, "
       "<service>.<namespace>.svc)",
       false, {}},
      {"webhook-configuration", "BLOODRAVEN_WEBHOOK_CONFIGURATION", "",
       "Kubernetes mode, with --webhook-ca-secret: the ValidatingWebhookConfiguration whose "
       "caBundle the operator keeps equal to its CA (empty: none)",
       false, {}},
      {"webhook-ca-interval", "BLOODRAVEN_WEBHOOK_CA_INTERVAL", "1m",
       "Kubernetes mode, with --webhook-ca-secret: how often the Secret, the files and the "
       "caBundle are checked (1s to 1h)",
       false, check_duration_within(std::chrono::seconds{1}, std::chrono::hours{1})},
      {"webhook-operator-user", "BLOODRAVEN_WEBHOOK_OPERATOR_USER", "",
       "Kubernetes mode: the only user the webhook lets change a Group Replication group's status "
       "(empty: system:serviceaccount:<namespace>:bloodraven)",
       false, {}},
      {"shutdown-timeout", "BLOODRAVEN_SHUTDOWN_TIMEOUT", "5s",
       "deadline for a clean stop after SIGTERM (at most 10m)", false,
       check_duration_within(limits::shutdown_timeout.min, limits::shutdown_timeout.max)},
      {"http-max-body", "BLOODRAVEN_HTTP_MAX_BODY", "1Mi", "largest accepted request body", false,
       check_positive_size},
      {"http-handler-timeout", "BLOODRAVEN_HTTP_HANDLER_TIMEOUT", "5s",
       "answer 503 when an endpoint has no answer within this time (at most 10m)", false,
       check_duration_within(limits::http_handler_timeout.min, limits::http_handler_timeout.max)},
      {"ws-allowed-origins", "BLOODRAVEN_WS_ALLOWED_ORIGINS", "*",
       "comma-separated Origin values allowed on GET /ws/status (* = any)", false, {}},
      {"ws-max-clients", "BLOODRAVEN_WS_MAX_CLIENTS", "100",
       "GET /ws/status clients at once; further upgrades get 429", false,
       [](const std::string& v) {
         return !v.empty() && v.size() <= 6 && v.find_first_not_of("0123456789") == std::string::npos &&
                        std::stoul(v) > 0
                    ? std::string{}
                    : std::string("must be a positive integer");
       }},
  };
  for (auto& d : api_tls_flag_defs()) defs.push_back(std::move(d));  // --tls-*: the API (issue 26)
  defs.push_back({"tls-cluster-issuers", "BLOODRAVEN_TLS_CLUSTER_ISSUERS", "",
                  "Kubernetes mode: the cert-manager ClusterIssuers a group's spec.tls.issuerRef may "
                  "name (comma-separated; empty: none). An Issuer of the operator's namespace is "
                  "always allowed",
                  false, {}});
  // The APIs over mutual TLS in Kubernetes mode (issue 26, api_tls_plan.hpp).
  defs.push_back({"api-tls-ca-secret", "BLOODRAVEN_API_TLS_CA_SECRET", "",
                  "Kubernetes mode: the operator and sidecar APIs over mutual TLS from a CA the operator "
                  "generates and keeps in this Secret of its namespace: its own certificate "
                  "(bloodraven://operator, --api-tls-service's names) written under --api-tls-dir, and "
                  "a Secret mysql-<group>-<site>-api-tls per site the sidecars mount (empty: plain HTTP)",
                  false, {}});
  defs.push_back({"api-tls-service", "BLOODRAVEN_API_TLS_SERVICE", "bloodraven",
                  "Kubernetes mode, with --api-tls-ca-secret: the operator's API Service in its namespace "
                  "(the sidecars' BLOODRAVEN_ADDRESS; its certificate names <service>, .<namespace>, .svc, "
                  ".svc.cluster.local)",
                  false, {}});
  defs.push_back({"api-tls-dir", "BLOODRAVEN_API_TLS_DIR", br::api_tls::default_dir,
                  "Kubernetes mode, with --api-tls-ca-secret: where the operator writes its API "
                  "certificate, key and CA (tls.crt, tls.key, ca.crt)",
                  false, {}});
  return defs;
}

/// Kubernetes mode: API client, lease and group source settings from the flags; 0 or the exit code.
int load_kube_mode(std::map<std::string, std::string>& flags,
                   const std::shared_ptr<br::group_table>& groups, br::kube_mode_options& out) {
  using namespace br;
  auto cfg = flags["kubeconfig"].empty() ? kube::default_config()
                                         : kube::load_kubeconfig(flags["kubeconfig"]);
  if (!cfg) {
    std::fprintf(stderr, "bloodraven: no Kubernetes API configuration: %s\n",
                 cfg.error().describe().c_str());
    return 2;
  }
  std::string identity = flags["pod-name"];
  if (identity.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    identity = host;
  }
  kube::client_options co;
  co.identity = identity;
  auto client = std::make_shared<kube::client>(*cfg, co);
  out.leader_elect = config::to_bool(flags["leader-elect"]);
  out.election.ns = flags["namespace"];
  out.election.name = "bloodraven.shipstream.io";
  out.election.identity = identity;
  out.source.client = client;
  out.source.groups = groups;
  out.source.instance = identity;
  out.source.operator_namespace = flags["namespace"];  // copies of generated operator Secrets
  auto split = [](const std::string& text) {  // "a, b,c" -> {a, b, c}
    std::vector<std::string> items;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
      while (!item.empty() && item.front() == ' ') item.erase(item.begin());
      while (!item.empty() && item.back() == ' ') item.pop_back();
      if (!item.empty()) items.push_back(item);
    }
    return items;
  };
  out.source.namespaces = split(flags["watch-namespaces"]);
  out.tls_options.cluster_issuers = split(flags["tls-cluster-issuers"]);
  log::info("kubernetes mode", {{"server", cfg->server},
                                {"identity", identity},
                                {"leaseNamespace", out.election.ns},
                                {"leaderElect", out.leader_elect},
                                {"namespaces", flags["watch-namespaces"].empty()
                                                   ? std::string("*")
                                                   : flags["watch-namespaces"]}});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace br;
  if (argc >= 2 && (std::string(argv[1]) == "switchover" || std::string(argv[1]) == "reclone" ||
                    std::string(argv[1]) == "fence" || std::string(argv[1]) == "recover"))
    return run_admin_cli(argc, argv);
  if (argc >= 2 && (std::string(argv[1]) == "backup" || std::string(argv[1]) == "restore"))
    return run_backup_cli(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "trigger-backup") return backup_ctl::run_trigger_backup(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "trigger-verification")
    return verify_ctl::run_trigger_verification(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "tls-certs") return run_tls_certs_cli(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "keygen") {
    if (argc < 4) {
      std::fprintf(stderr, "usage: bloodraven keygen DIR SITE...\n"
                           "  writes operator.key/.pub and site-<SITE>.key/.pub (existing keys kept)\n");
      return 2;
    }
    std::vector<std::string> sites(argv + 3, argv + argc);
    auto err = br::auth::write_key_dir(argv[2], sites);
    if (!err.empty()) {
      std::fprintf(stderr, "bloodraven keygen: %s\n", err.c_str());
      return 1;
    }
    return 0;
  }
  auto defs = operator_flags();
  auto flags = config::parse_flags(defs, argc, argv, [](const char* n) { return std::getenv(n); });
  switch (flags.what) {
    case config::parsed_flags::action::help:
      std::fputs(config::usage("bloodraven",
                               "Bloodraven operator: keeps MySQL async-replication failover groups "
                               "alive across sites.",
                               defs)
                     .c_str(),
                 stdout);
      return 0;
    case config::parsed_flags::action::version:
      std::printf("bloodraven %s\n", version_string());
      return 0;
    case config::parsed_flags::action::fail:
      std::fprintf(stderr, "bloodraven: %s\n", flags.error.c_str());
      return 2;
    case config::parsed_flags::action::run:
      break;
  }
  log::level lvl;
  log::parse_level(flags.values["log-level"], lvl);
  log::set_level(lvl);

  runtime_options opts;
  opts.binary = "bloodraven";
  opts.listen = {flags.values["listen"], flags.values["metrics-listen"]};
  opts.health_listen = flags.values["health-listen"];
  opts.shutdown_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      config::to_duration(flags.values["shutdown-timeout"]));
  opts.max_body_bytes = config::to_size(flags.values["http-max-body"]);
  opts.handler_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      config::to_duration(flags.values["http-handler-timeout"]));
  if (auto err = config::read_api_tls(flags.values, opts.api_tls); !err.empty()) {
    std::fprintf(stderr, "bloodraven: %s\n", err.c_str());
    return 2;
  }
  if (auto err = api_tls::operator_api_tls(flags.values["api-tls-ca-secret"], flags.values["api-tls-dir"],
                                           !flags.values["standalone"].empty(), opts.api_tls);
      !err.empty()) {
    std::fprintf(stderr, "bloodraven: %s\n", err.c_str());
    return 2;
  }

  auto groups = std::make_shared<group_table>();
  operator_api_options api;
  api.groups = groups;
  api.client_certificates = opts.api_tls.on();
  http::websocket_options wso;
  wso.allowed_origins = http::split_origins(flags.values["ws-allowed-origins"]);
  wso.max_clients = std::stoul(flags.values["ws-max-clients"]);
  auto ws = std::make_shared<http::websocket_hub>(wso);
  ws->on_clients = [](size_t n) { opmetrics::set_websocket_clients(static_cast<double>(n)); };
  ws->on_drop = [](const std::string& why) { opmetrics::websocket_dropped(why).Increment(); };
  opmetrics::set_websocket_clients(0);
  api.ws = ws;
  children_factory children;
  if (!flags.values["standalone"].empty() && !flags.values["webhook-listen"].empty()) {
    std::fprintf(stderr, "bloodraven: --webhook-listen is for Kubernetes mode, not --standalone\n");
    return 2;
  }
  if (!flags.values["webhook-ca-secret"].empty() && flags.values["webhook-listen"].empty()) {
    std::fprintf(stderr, "bloodraven: --webhook-ca-secret needs --webhook-listen\n");
    return 2;
  }
  if (!flags.values["webhook-listen"].empty()) {
    std::string user = flags.values["webhook-operator-user"];
    if (user.empty()) user = "system:serviceaccount:" + flags.values["namespace"] + ":bloodraven";
    log::info("status webhook", {{"listen", flags.values["webhook-listen"]}, {"operatorUser", user}});
    opts.extra.push_back({flags.values["webhook-listen"],
                          status_webhook_options(flags.values["webhook-cert-file"],
                                                 flags.values["webhook-key-file"]),
                          status_webhook_routes(user)});
  }
  if (!flags.values["standalone"].empty()) {
    auto setup = std::make_shared<standalone_setup>();
    if (int rc = load_standalone(flags.values, *setup); rc != 0) return rc;
    setup->api_tls = opts.api_tls;  // view pushes and held-view reads to the sidecars
    // Created before the actor system: GET /events reads it from the HTTP threads.
    auto events = std::make_shared<event_ring>(256);
    api.events = [events] { return events->snapshot(); };
    children = standalone_children(setup, groups, ws, events);
  } else {
    kube_mode_options ko;
    if (int rc = load_kube_mode(flags.values, groups, ko); rc != 0) return rc;
    ko.source.api_tls = opts.api_tls;  // view pushes and held-view reads to the sidecars
    std::optional<op_ca::operator_ca_options> ca;
    if (!flags.values["webhook-ca-secret"].empty()) {
      // The listener loads the files when it starts: they exist before run_process.
      ca.emplace();
      ca->client = ko.source.client;
      ca->ns = flags.values["namespace"];
      ca->secret = flags.values["webhook-ca-secret"];
      ca->service = flags.values["webhook-service"];
      ca->webhook_configuration = flags.values["webhook-configuration"];
      ca->cert_file = flags.values["webhook-cert-file"];
      ca->key_file = flags.values["webhook-key-file"];
      ca->interval = std::chrono::duration_cast<std::chrono::milliseconds>(
          config::to_duration(flags.values["webhook-ca-interval"]));
      if (auto err = op_ca::prepare_operator_ca(*ca, std::chrono::seconds{60}); !err.empty()) {
        std::fprintf(stderr, "bloodraven: webhook CA: %s\n", err.c_str());
        return 1;
      }
    }
    std::optional<op_ca::operator_ca_options> api_ca;
    if (!flags.values["api-tls-ca-secret"].empty()) {
      // The API listener loads its files when it starts: they exist before run_process. Every
      // replica keeps its own files; the leader's TLS controller issues the sites' Secrets.
      api_ca.emplace();
      api_ca->client = ko.source.client;
      api_ca->ns = flags.values["namespace"];
      api_ca->secret = flags.values["api-tls-ca-secret"];
      api_ca->service = flags.values["api-tls-service"];
      api_ca->names = api_tls::operator_cert_names(api_ca->service, api_ca->ns);
      api_ca->client_auth = true;
      api_ca->component = api_tls::ca_component;
      api_ca->cert_file = opts.api_tls.cert_file;
      api_ca->key_file = opts.api_tls.key_file;
      api_ca->ca_file = opts.api_tls.ca_file;
      api_ca->log_name = "API CA";
      if (auto err = op_ca::prepare_operator_ca(*api_ca, std::chrono::seconds{60}); !err.empty()) {
        std::fprintf(stderr, "bloodraven: API CA: %s\n", err.c_str());
        return 1;
      }
      ko.tls_options.api_ca = api_ca;
      ko.source.render.api_tls = true;  // the sidecars mount their site's API Secret
    }
    api.pitr = backup_ctl::make_pitr_source(ko.source.client);  // GET /pitr-cutoff
    ko.source.ws = ws;  // GET /ws/status and the dashboard, fed by every running group
    // Any root-level failure (above all "leader lease lost") ends the process non-zero (S8);
    // group failures are handled inside the group source.
    opts.root_policy.max_restarts = 0;
    children = [ko, ws, ca, api_ca](caf::actor_system&) {
      auto out = kube_mode_children(ko);
      if (api_ca)  // every replica, leader or not: each serves and calls with its own files
        out.insert(out.begin(), child_spec{"api_ca", "api_ca",
                                           [o = *api_ca](caf::local_actor* sup, const std::string&) {
                                             return as_child(op_ca::spawn_operator_ca_keeper(sup->system(), o));
                                           }});
      // Every replica keeps its webhook material, leader or not (all of them serve the webhook).
      if (ca)
        out.insert(out.begin(), child_spec{"webhook_ca", "webhook_ca",
                                           [o = *ca](caf::local_actor* sup, const std::string&) {
                                             return as_child(op_ca::spawn_operator_ca_keeper(sup->system(), o));
                                           }});
      // First child, so it stops last: WebSocket sessions close before the HTTP server goes.
      out.insert(out.begin(), lifetime_hook("websocket", [ws] { ws->close_all(); }));
      return out;
    };
  }
  int rc = run_process(opts, children, [&api](http::router& r, caf::actor_system& sys) {
    install_operator_routes(r, sys, api);
  });
  return rc;
}
