// peak_rss COMMAND [ARG...]: runs a command, then prints its peak resident set
// size and the CPU time it used (from wait4's rusage) on stderr and exits with the
// command's status.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: peak_rss COMMAND [ARG...]\n");
    return 2;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[1], argv + 1);
    std::perror(argv[1]);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (pid < 0 || wait4(pid, &status, 0, &usage) < 0) {
    std::perror("peak_rss");
    return 2;
  }
  std::fprintf(stderr, "peak RSS: %.1f MB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);  // ru_maxrss is in KiB
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  std::fprintf(stderr, "CPU: %.3f s user, %.3f s system\n", seconds(usage.ru_utime), seconds(usage.ru_stime));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
