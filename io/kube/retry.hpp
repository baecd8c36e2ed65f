// Optimistic-concurrency helper: re-read, re-apply the mutation and write again on 409 Conflict.
#pragma once

#include <functional>

#include "io/kube/client.hpp"

namespace br::kube {

struct retry_options {
  int attempts = 5;                // writes tried at most; then the last 409 is returned
  milliseconds backoff{20};        // between attempts, doubled each time
  int* attempts_used = nullptr;    // optional: how many writes were made
};

/// get() reads the current object; mutate(obj) changes it in place and returns false when no
/// write is needed (then the read object is returned); write(obj) sends it with obj's
/// resourceVersion. Only 409 Conflict is retried, always from a fresh read.
result<json> update_with_retry(const std::function<result<json>()>& get,
                               const std::function<bool(json&)>& mutate,
                               const std::function<result<json>(const json&)>& write,
                               const retry_options& o = {});

/// The common case: PUT the object (or its status subresource when `status`).
result<json> update_with_retry(client& c, const resource_ref& r, const std::string& ns,
                               const std::string& name, const std::function<bool(json&)>& mutate,
                               bool status = false, const retry_options& o = {});

}  // namespace br::kube
