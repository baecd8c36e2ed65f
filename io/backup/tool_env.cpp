// Tool placement, private directory and option file (see tool_env.hpp).
#include "io/backup/tool_env.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace br::backup {

private_dir::private_dir(const tool_settings& t, std::string& error) {
  std::string base;
  std::string inside_prefix;
  if (!t.chroot.empty()) {
    base = t.chroot + "/tmp";
    inside_prefix = "/tmp";
  } else if (!t.work_dir.empty()) {
    base = t.work_dir;
  } else {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string templ = base + "/bloodraven-backup-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    error = "cannot create a private directory under " + base + ": " + std::strerror(errno);
    return;
  }
  ::chmod(templ.c_str(), 0700);
  host_ = templ;
  tool_ = t.chroot.empty() ? host_ : inside_prefix + host_.substr(host_.rfind('/'));
}

private_dir::~private_dir() {
  if (host_.empty() || keep_) return;
  std::error_code ec;
  std::filesystem::remove_all(host_, ec);
}

std::string client_option_text(const std::string& user, const std::string& password,
                               std::string& error) {
  auto bad = [](const std::string& v) {
    return v.find('\n') != std::string::npos || v.find('\r') != std::string::npos ||
           v.find('\0') != std::string::npos;
  };
  if (bad(user) || bad(password)) {
    error = "the MySQL user name or password holds a newline or NUL, which an option file cannot carry";
    return "";
  }
  auto quote = [](const std::string& v) {
    std::string out = "\"";
    for (char c : v) {
      if (c == '\\' || c == '"') out += '\\';
      out += c;
    }
    return out + "\"";
  };
  return "[client]\nuser=" + quote(user) + "\npassword=" + quote(password) + "\n";
}

namespace {

/// Writes `text` to `path` (O_EXCL, 0600); "" or what failed.
std::string write_private_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot write " + path + ": " + std::strerror(errno);
  size_t off = 0;
  while (off < text.size()) {
    ssize_t w = ::write(fd, text.data() + off, text.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      std::string e = "cannot write " + path + ": " + std::strerror(errno);
      ::close(fd);
      return e;
    }
    off += static_cast<size_t>(w);
  }
  ::close(fd);
  return "";
}

}  // namespace

std::string write_option_file(const private_dir& dir, const std::string& name, const std::string& user,
                              const std::string& password, std::string& error) {
  auto text = client_option_text(user, password, error);
  if (!error.empty()) return "";
  if (auto e = write_private_file(dir.host_path(name), text); !e.empty()) {
    error = "the option file: " + e;
    return "";
  }
  return dir.tool_path(name);
}

std::vector<std::string> client_tls_args(const std::string& tool_ca_file) {
  if (tool_ca_file.empty()) return {};
  return {"--ssl-mode=VERIFY_IDENTITY", "--ssl-ca=" + tool_ca_file};
}

std::string copy_into(const private_dir& dir, const std::string& host_file, const std::string& name,
                      std::string& error) {
  constexpr std::streamsize max_size = 1 << 20;
  std::ifstream in(host_file, std::ios::binary);
  std::string text(static_cast<size_t>(max_size) + 1, '\0');
  if (in) in.read(text.data(), max_size + 1);
  if (!in && !in.eof()) {
    error = "cannot read " + host_file;
    return "";
  }
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.empty() || text.size() > static_cast<size_t>(max_size)) {
    error = host_file + (text.empty() ? " is empty" : " is over 1 MiB");
    return "";
  }
  if (auto e = write_private_file(dir.host_path(name), text); !e.empty()) {
    error = e;
    return "";
  }
  return dir.tool_path(name);
}

std::string stage_ca(const private_dir& dir, const std::string& host_ca_file, std::string& error) {
  if (host_ca_file.empty()) return "";
  auto ca = copy_into(dir, host_ca_file, "ca.pem", error);
  if (!error.empty()) error = "the TLS CA (spec.tls): " + error;
  return ca;
}

command tool_command(const tool_settings& t, const std::string& tool, std::vector<std::string> args) {
  command c;
  std::string exe = t.bin_dir.empty() ? tool : t.bin_dir + "/" + tool;
  if (!t.chroot.empty()) c.argv = {"chroot", t.chroot};
  c.argv.push_back(exe);
  for (auto& a : args) c.argv.push_back(std::move(a));
  return c;
}

std::vector<std::string> tool_environment(const private_dir& dir) {
  return {"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "TZ=UTC", "LC_ALL=C",
          "HOME=" + dir.tool_path("home")};
}

}  // namespace br::backup
