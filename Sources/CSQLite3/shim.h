#ifndef CSQLITE3_SHIM_H
#define CSQLITE3_SHIM_H

#include <pthread.h>
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import.
static inline sqlite3_destructor_type csqlite3_transient(void) { return SQLITE_TRANSIENT; }

/// Extended result codes built from expressions Swift does not import.
static const int CSQLITE3_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int CSQLITE3_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;

/// Closing the connection leaves the WAL as it is (sqlite3_db_config is variadic, which Swift cannot call).
static inline int csqlite3_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

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
