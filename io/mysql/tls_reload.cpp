// ALTER INSTANCE RELOAD TLS on a session of its own.
#include "io/mysql/tls_reload.hpp"

namespace br::mysql {

result<void> reload_tls(const connect_options& opts) {
  auto c = connection::open(opts);
  if (!c) return c.error();
  auto r = c->exec("ALTER INSTANCE RELOAD TLS");
  if (!r) return r.error();
  return {};
}

}  // namespace br::mysql
