#include "apps/plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "storage/file.hpp"

extern char** environ;

namespace strata {

namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
}

// Quoted for a gnuplot string.
std::string quoted(const std::string& path) {
  std::string q = path;
  replace_all(q, "\\", "\\\\");
  replace_all(q, "\"", "\\\"");
  return "\"" + q + "\"";
}

void write_text(const std::string& path, const std::string& text) {
  File f(path, O_WRONLY | O_CREAT | O_TRUNC);
  f.write_all(text.data(), text.size());
}

}  // namespace

bool plot_png(const std::string& png, const std::string& script, const std::string& data) {
  const std::string base = png + ".tmp-" + std::to_string(::getpid());
  const std::string data_path = base + ".dat", script_path = base + ".gp", out_path = base + ".png";
  std::string s = script;
  replace_all(s, "$data", quoted(data_path));
  replace_all(s, "$png", quoted(out_path));
  write_text(data_path, data);
  write_text(script_path, s);
  auto cleanup = [&] {
    std::remove(data_path.c_str());
    std::remove(script_path.c_str());
    std::remove(out_path.c_str());
  };
  // gnuplot's own messages go to /dev/null: a failure is reported in one line below.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  char arg0[] = "gnuplot";
  std::string script_arg = script_path;
  char* argv[] = {arg0, script_arg.data(), nullptr};
  pid_t pid;
  const int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    cleanup();
    std::fprintf(stderr, "strata: warning: gnuplot not found (install gnuplot-nox): %s not written\n", png.c_str());
    return false;
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !std::filesystem::exists(out_path)) {
    cleanup();
    std::fprintf(stderr, "strata: warning: gnuplot failed: %s not written\n", png.c_str());
    return false;
  }
  char magic[8] = {};
  File(out_path, O_RDONLY).pread_all(magic, 8, 0);
  if (std::memcmp(magic, "\x89PNG\r\n\x1a\n", 8) != 0) {
    cleanup();
    throw Error("gnuplot wrote something that is not a PNG instead of " + png);
  }
  std::string bytes(std::filesystem::file_size(out_path), '\0');  // a few kB
  File(out_path, O_RDONLY).pread_all(bytes.data(), bytes.size(), 0);
  cleanup();
  write_output_file(png, bytes);  // a link's target, a device or a FIFO as for --json
  return true;
}

}  // namespace strata
