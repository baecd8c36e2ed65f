// Kubernetes API errors as values: HTTP status plus the reason and message of the Status object.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace br::kube {

struct api_error {
  int status = 0;      // HTTP status; 0 when no response arrived (transport failure)
  std::string reason;  // Status.reason ("Conflict", "NotFound", "Expired", ...) or transport kind
  std::string message;

  bool transport() const { return status == 0; }
  bool conflict() const { return status == 409 && reason != "AlreadyExists"; }
  bool not_found() const { return status == 404; }
  bool already_exists() const { return status == 409 && reason == "AlreadyExists"; }
  bool gone() const { return status == 410; }
  /// Worth retrying later: transport failures, 429, 5xx.
  bool retryable() const { return status == 0 || status == 429 || status >= 500; }
  std::string describe() const;
};

/// A value or an api_error.
template <class T>
class result {
 public:
  result(T v) : v_(std::move(v)) {}            // NOLINT: implicit on purpose
  result(api_error e) : v_(std::move(e)) {}    // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const api_error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, api_error> v_;
};

}  // namespace br::kube
