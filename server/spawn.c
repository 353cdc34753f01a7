/*
 * spawn: the clean slate a daemon's child needs (in a forked child only), and the process group of a child
 * that may have to be killed with what it started.
 */
#include "server/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

void spawn_child_reset(int outfd)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigset_t none;
    int nul;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &dfl, NULL);
    if (outfd >= 0)
        outfd = fcntl(outfd, F_DUPFD, 3); /* out of the way of 0..2 */
    if ((nul = open("/dev/null", O_RDONLY)) >= 0 && nul != 0) {
        dup2(nul, 0);
        close(nul);
    }
    if (outfd >= 0) {
        dup2(outfd, 1);
        dup2(outfd, 2);
    }
    if (close_range(3, ~0U, 0) != 0)
        for (int fd = 3; fd < 65536; fd++)
            close(fd);
}

void spawn_oom_score(const char *adj)
{
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    size_t len = 0;

    if (fd < 0)
        return;
    while (adj[len])
        len++;
    if (write(fd, adj, len) < 0) {
        /* not permitted: keep the inherited score */
    }
    close(fd);
}

void spawn_own_group(void)
{
    setpgid(0, 0);
}

void spawn_own_group_of(pid_t pid)
{
    setpgid(pid, pid); /* EACCES once the child has exec'd: it made its group itself by then */
}

void spawn_kill_group(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}
