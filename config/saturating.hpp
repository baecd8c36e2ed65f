// Saturating arithmetic on durations and time points: a sum that would leave the range of the
// representation stops at its end instead of wrapping. Used wherever configured durations are
// added (the promotion gate's rule-3 wait, timers computing now + d), so that a huge value means
// "a very long time" and never a negative wait (docs/safety.md, gate rule 3).
#pragma once

#include <chrono>
#include <concepts>
#include <limits>

namespace br::config {

/// a + b, clamped to [min, max] of Rep.
template <std::integral Rep, class Period>
constexpr std::chrono::duration<Rep, Period> sat_add(std::chrono::duration<Rep, Period> a,
                                                     std::chrono::duration<Rep, Period> b) {
  using D = std::chrono::duration<Rep, Period>;
  Rep r{};
  if (__builtin_add_overflow(a.count(), b.count(), &r))
    return b.count() > 0 ? D{std::numeric_limits<Rep>::max()} : D{std::numeric_limits<Rep>::min()};
  return D{r};
}

/// The saturating sum of every argument, left to right. Clamping is sticky in one direction only
/// for arguments of one sign, which is what callers pass (configured, non-negative durations).
template <std::integral Rep, class Period, class... More>
constexpr std::chrono::duration<Rep, Period> sat_sum(std::chrono::duration<Rep, Period> a,
                                                     std::chrono::duration<Rep, Period> b,
                                                     More... more) {
  auto s = sat_add(a, b);
  if constexpr (sizeof...(More) == 0)
    return s;
  else
    return sat_sum(s, more...);
}

/// t + d, clamped to the clock's representable range (time_point::max() / min()).
template <class Clock, std::integral Rep, class Period>
constexpr std::chrono::time_point<Clock, std::chrono::duration<Rep, Period>> sat_add(
    std::chrono::time_point<Clock, std::chrono::duration<Rep, Period>> t,
    std::chrono::duration<Rep, Period> d) {
  using TP = std::chrono::time_point<Clock, std::chrono::duration<Rep, Period>>;
  return TP{sat_add(t.time_since_epoch(), d)};
}

/// ceil(d * 11 / 10): d plus a 10% margin rounded up, saturating; never overflows in between
/// (d / 10 is taken before it is added). Negative d is returned unchanged.
template <std::integral Rep, class Period>
constexpr std::chrono::duration<Rep, Period> plus_ten_percent(std::chrono::duration<Rep, Period> d) {
  using D = std::chrono::duration<Rep, Period>;
  if (d.count() <= 0) return d;
  Rep tenth = d.count() / 10 + (d.count() % 10 != 0 ? 1 : 0);
  return sat_add(d, D{tenth});
}

}  // namespace br::config
