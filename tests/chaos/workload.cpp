// Chaos harness workload threads (see workload.hpp). Every MySQL call has a hard timeout.
#include "tests/chaos/workload.hpp"

#include <optional>

#include "io/mysql/connection.hpp"

using namespace std::chrono_literals;

namespace br::chaos {

/// One application session to one site, reopened after any failure.
class writer_conn {
 public:
  std::optional<br::mysql::connection> conn;
  int site = -1;
};

workload::workload(cluster& c, options o) : c_(c), opt_(o) {}

void workload::start() {
  if (!stop_.exchange(false)) return;
  threads_.emplace_back([this] { sampler_loop(); });
  threads_.emplace_back([this] { writer_loop(); });
  if (opt_.probe_period_ms > 0)
    for (int k = 0; k < cluster::sites; ++k) threads_.emplace_back([this, k] { prober_loop(k); });
}

void workload::stop() {
  stop_ = true;
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

std::vector<ack> workload::acks() const {
  std::lock_guard<std::mutex> lk(mx_);
  return acks_;
}

std::vector<sample_round> workload::rounds() const {
  std::lock_guard<std::mutex> lk(mx_);
  return rounds_;
}

std::string workload::writer_site() const {
  std::lock_guard<std::mutex> lk(mx_);
  return writer_site_;
}

bool workload::write_one(writer_conn& w, int k, bool direct) {
  if (!w.conn || w.site != k) {
    w.conn.reset();
    br::mysql::connect_options o;
    o.host = c_.site_addr(k);
    o.port = c_.mysql_port(k);
    o.user = "app";
    o.password = "apppw";
    o.database = "appdb";
    o.connect_timeout = 1s;
    o.read_timeout = 2s;
    o.write_timeout = 2s;
    if (!c_.mysql_tls_ca().empty()) {  // TLS runs: verified like every client of the group
      o.tls = br::mysql::tls_mode::verify_identity;
      o.tls_ca_file = c_.mysql_tls_ca();
    }
    auto r = br::mysql::connection::open(o);
    if (!r) return false;
    w.conn.emplace(std::move(r.value()));
    w.site = k;
  }
  int64_t id = next_id_++;
  int64_t t0 = now_ms();
  auto r = w.conn->exec("INSERT INTO chaos_writes (id, site, t_ms) VALUES (" + std::to_string(id) +
                        ", '" + cluster::site_name(k) + "', " + std::to_string(t0) + ")");
  if (!r) {
    // read_only refusals keep the session usable; anything else may have killed it
    if (r.error().code != 1290) w.conn.reset();
    return false;
  }
  std::lock_guard<std::mutex> lk(mx_);
  acks_.push_back(ack{id, cluster::site_name(k), t0, now_ms(), direct});
  return true;
}

void workload::writer_loop() {
  writer_conn w;
  std::string active;
  int64_t next_view = 0;
  while (!stop_) {
    int64_t t = now_ms();
    if (t >= next_view) {
      // Steering: the operator's answer; while it is unreachable, the last known site (a router
      // keeps its configuration when its control plane is down).
      auto v = c_.active_view();
      if (v.is_object()) active = v.value("activeSite", "");
      next_view = t + 100;
    }
    int k = cluster::site_index(active);
    if (k >= 0 && !paused_) {
      ++attempts_;
      if (!write_one(w, k, false)) ++failures_;
      std::lock_guard<std::mutex> lk(mx_);
      writer_site_ = active;
    }
    int64_t left = opt_.write_period_ms - (now_ms() - t);
    if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(left));
  }
}

void workload::prober_loop(int k) {
  writer_conn w;
  while (!stop_) {
    int64_t t = now_ms();
    if (!paused_) write_one(w, k, true);
    int64_t left = opt_.probe_period_ms - (now_ms() - t);
    if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(left));
  }
}

void workload::sampler_loop() {
  std::vector<std::unique_ptr<site_sql>> s;
  for (int k = 0; k < cluster::sites; ++k) s.push_back(std::make_unique<site_sql>(c_.socket_path(k)));
  while (!stop_) {
    sample_round r;
    r.t_ms = now_ms();
    for (int k = 0; k < cluster::sites; ++k) {
      site_sample x;
      x.site = cluster::site_name(k);
      auto rows = s[k]->query("SELECT @@global.read_only, @@global.super_read_only");
      if (rows && !rows->empty() && rows->front().size() == 2) {
        x.reachable = true;
        x.read_only = rows->front()[0].value_or("1") != "0";
        x.super_read_only = rows->front()[1].value_or("1") != "0";
      }
      r.sites.push_back(x);
    }
    int64_t t0 = r.t_ms;
    auto v = c_.active_view();
    if (v.is_object()) {
      r.operator_active = v.value("activeSite", "");
      r.operator_epoch = v.value("epoch", int64_t{0});
    }
    {
      std::lock_guard<std::mutex> lk(mx_);
      rounds_.push_back(std::move(r));
    }
    int64_t left = opt_.sample_period_ms - (now_ms() - t0);
    if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(left));
  }
}

}  // namespace br::chaos
