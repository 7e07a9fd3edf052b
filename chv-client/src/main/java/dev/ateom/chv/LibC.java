package dev.ateom.chv;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/** The libc socket calls the JDK lacks for Unix sockets: sending file descriptors (SCM_RIGHTS). */
interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    int AF_UNIX = 1;
    int SOCK_STREAM = 1;
    int SOCK_CLOEXEC = 0x80000;
    int SOL_SOCKET = 1;
    int SCM_RIGHTS = 1;
    int MSG_NOSIGNAL = 0x4000;
    int SHUT_RDWR = 2;
    short POLLIN = 0x1;
    short POLLOUT = 0x4;
    int EINTR = 4;
    int EAGAIN = 11;

    int socket(int domain, int type, int protocol) throws LastErrorException;

    int connect(int fd, Pointer addr, int len) throws LastErrorException;

    long sendmsg(int fd, Pointer msghdr, int flags) throws LastErrorException;

    long read(int fd, Pointer buf, long count) throws LastErrorException;

    int poll(Pointer fds, long nfds, int timeoutMillis) throws LastErrorException;

    int close(int fd) throws LastErrorException;

    int shutdown(int fd, int how) throws LastErrorException;
}
