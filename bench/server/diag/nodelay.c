/* A diagnostic, not part of any build: sets TCP_NODELAY on every socket a process accepts, to
   show what Nagle's algorithm costs `superstep serve`'s streams (evhttp leaves it on):
     gcc -O2 -shared -fPIC -o /tmp/nodelay.so bench/server/diag/nodelay.c -ldl
     printf '#!/bin/sh\nLD_PRELOAD=/tmp/nodelay.so exec %s "$@"\n' "$PWD/build/cluster/superstep" > /tmp/ss-nodelay
     chmod +x /tmp/ss-nodelay
     node bench/server/bench.mjs --servers superstep --superstep /tmp/ss-nodelay */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

int accept4(int fd, struct sockaddr *a, socklen_t *l, int flags) {
  static int (*real)(int, struct sockaddr *, socklen_t *, int);
  if (!real) real = (int (*)(int, struct sockaddr *, socklen_t *, int))dlsym(RTLD_NEXT, "accept4");
  int s = real(fd, a, l, flags);
  if (s >= 0) {
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return s;
}
int accept(int fd, struct sockaddr *a, socklen_t *l) { return accept4(fd, a, l, 0); }
