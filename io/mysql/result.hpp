// result<T>: a value or a mysql_error (errors are values; nothing in io/mysql throws across its
// API).
#pragma once

#include <optional>
#include <utility>
#include <variant>

#include "io/mysql/error.hpp"

namespace br::mysql {

template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : v_(std::move(value)) {}        // NOLINT: implicit on purpose
  result(mysql_error err) : v_(std::move(err)) {}  // NOLINT: implicit on purpose

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const mysql_error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, mysql_error> v_;
};

/// Success without a value, or an error.
template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(mysql_error err) : err_(std::move(err)) {}  // NOLINT: implicit on purpose

  bool ok() const { return !err_.has_value(); }
  explicit operator bool() const { return ok(); }
  const mysql_error& error() const { return *err_; }

 private:
  std::optional<mysql_error> err_;
};

}  // namespace br::mysql
