#ifndef CSQLITE3_SHIM_H
#define CSQLITE3_SHIM_H

#include <pthread.h>
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import.
static inline sqlite3_destructor_type csqlite3_transient(void) { return SQLITE_TRANSIENT; }

/// Extended result codes built from expressions Swift does not import.
static const int CSQLITE3_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int CSQLITE3_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;

/// Names the calling thread (for top, perf, debuggers); pthread_setname_np needs _GNU_SOURCE on Linux.
static inline void csqlite3_name_thread(const char *name) {
#if defined(__APPLE__)
    pthread_setname_np(name);
#elif defined(__linux__)
    extern int pthread_setname_np(pthread_t thread, const char *name);
    pthread_setname_np(pthread_self(), name);
#endif
}

#endif
