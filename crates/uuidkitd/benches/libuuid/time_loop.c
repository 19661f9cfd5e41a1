/* libuuid's uuid_generate_time_safe called N times, as a C program linked with libuuid
 * calls it. libuuid asks the daemon on /run/uuidd/request for blocks of timestamps and
 * makes UUIDs from them itself; it fails with -1 ("not safe") when it had to make them
 * without a daemon. Exit status 1 if any call was not safe, so that a run timed without
 * a daemon cannot pass for one with it. Prints the last UUID (its node shows which daemon
 * made it).
 *
 * Built by vs_uuidd.sh: gcc -O2 time_loop.c -luuid */
#include <stdio.h>
#include <stdlib.h>
#include <uuid/uuid.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    long unsafe_calls = 0;
    uuid_t u;
    char text[37];
    for (long i = 0; i < n; i++)
        if (uuid_generate_time_safe(u) != 0)
            unsafe_calls++;
    if (unsafe_calls) {
        fprintf(stderr, "%ld of %ld calls were not safe: no daemon answered\n", unsafe_calls, n);
        return 1;
    }
    uuid_unparse_lower(u, text);
    puts(text);
    return 0;
}
