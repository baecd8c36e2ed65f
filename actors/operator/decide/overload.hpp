// overload{f, g, ...}: one visitor from several lambdas (for std::visit over the step's variants).
#pragma once

namespace br {

template <class... Fs>
struct overload : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overload(Fs...) -> overload<Fs...>;

}  // namespace br
