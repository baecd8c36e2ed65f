// client::watch: one chunked watch stream on its own easy handle, decoded line by line.
#include <curl/curl.h>

#include "io/kube/client.hpp"
#include "io/kube/curl_setup.hpp"

namespace br::kube {

namespace {

struct stream_state {
  const std::function<bool(const watch_event&)>* on_event = nullptr;
  const std::atomic<bool>* stop = nullptr;
  std::string pending;
  long status = 0;
  CURL* h = nullptr;
  watch_outcome out;
  bool aborted = false;  // by the consumer, a stop or an ERROR event
  bool gone = false;
  std::string error_body;
};

bool deliver_line(stream_state& st, const std::string& line) {
  if (line.empty()) return true;
  json ev = json::parse(line, nullptr, false);
  if (ev.is_discarded() || !ev.is_object()) {
    st.out.error = api_error{200, "BadWatchEvent", "undecodable watch event"};
    return false;
  }
  watch_event e{ev.value("type", std::string{}), ev.value("object", json::object())};
  if (e.type == "ERROR") {
    st.out.error = detail::status_to_error(500, e.object);
    st.gone = st.out.error.status == 410;
    return false;
  }
  if (e.object.is_object() && e.object.contains("metadata"))
    st.out.last_resource_version = e.object["metadata"].value("resourceVersion", st.out.last_resource_version);
  ++st.out.events;
  return (*st.on_event)(e);
}

size_t on_data(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<stream_state*>(user);
  const size_t bytes = size * n;
  if (st->status == 0) curl_easy_getinfo(st->h, CURLINFO_RESPONSE_CODE, &st->status);
  if (st->status != 200) {
    st->error_body.append(data, std::min<size_t>(bytes, 1u << 16));
    return bytes;
  }
  st->pending.append(data, bytes);
  std::size_t start = 0;
  for (;;) {
    auto eol = st->pending.find('\n', start);
    if (eol == std::string::npos) break;
    if (!deliver_line(*st, st->pending.substr(start, eol - start))) {
      st->aborted = true;
      return 0;
    }
    start = eol + 1;
  }
  st->pending.erase(0, start);
  if (st->pending.size() > (16u << 20)) return 0;  // a runaway line
  return bytes;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* st = static_cast<stream_state*>(user);
  if (st->stop && st->stop->load()) {
    st->aborted = true;
    return 1;
  }
  return 0;
}

}  // namespace

watch_outcome client::watch(const resource_ref& r, const std::string& ns, const watch_options& o,
                            const std::function<bool(const watch_event&)>& on_event,
                            const std::atomic<bool>* stop) {
  std::string q = "?watch=1&timeoutSeconds=" + std::to_string(o.server_timeout.count());
  if (o.allow_bookmarks) q += "&allowWatchBookmarks=true";
  if (!o.resource_version.empty()) q += "&resourceVersion=" + query_escape(o.resource_version);
  if (!o.label_selector.empty()) q += "&labelSelector=" + query_escape(o.label_selector);
  if (!o.field_selector.empty()) q += "&fieldSelector=" + query_escape(o.field_selector);
  stream_state st;
  st.on_event = &on_event;
  st.stop = stop;
  st.out.last_resource_version = o.resource_version;
  CURL* h = curl_easy_init();  // watches never share the pooled handles
  if (!h) {
    st.out.how = watch_outcome::end::error;
    st.out.error = api_error{0, "Transport", "curl_easy_init failed"};
    return st.out;
  }
  st.h = h;
  detail::response_sink sink;
  const auto deadline = std::chrono::duration_cast<milliseconds>(o.server_timeout) + milliseconds{30000};
  auto headers = detail::setup(h, cfg_, opts_, "GET", cfg_.server + r.path(ns) + q, {}, {}, deadline, sink);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &st);
  const CURLcode rc = curl_easy_perform(h);
  if (st.status == 0) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &st.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(h);
  if (st.status != 0 && st.status != 200) {
    auto d = detail::decode(static_cast<int>(st.status), st.error_body);
    st.out.error = d ? api_error{static_cast<int>(st.status), "HTTP" + std::to_string(st.status), ""} : d.error();
    st.out.how = st.out.error.status == 410 ? watch_outcome::end::gone : watch_outcome::end::error;
    return st.out;
  }
  if (st.gone) {
    st.out.how = watch_outcome::end::gone;
  } else if (st.aborted && st.out.error.status == 0 && st.out.error.reason.empty()) {
    st.out.how = watch_outcome::end::stopped;
  } else if (st.aborted) {
    st.out.how = watch_outcome::end::error;
  } else if (rc == CURLE_OK) {
    st.out.how = watch_outcome::end::closed;
  } else {
    st.out.how = watch_outcome::end::error;
    st.out.error = detail::transport_error(rc, sink.error);
  }
  return st.out;
}

}  // namespace br::kube
