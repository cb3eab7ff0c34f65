#ifndef GLUCOBRIDGE_CSQLITECONFIG_SHIM_H
#define GLUCOBRIDGE_CSQLITECONFIG_SHIM_H
#include <sqlite3.h>

/* sqlite3_db_config is variadic, which Swift cannot call: wrap the one form the store uses.
   Turns the connection's triggers on (1) or off (0) for statements prepared from now on
   (https://sqlite.org/c3ref/c_dbconfig_defensive.html, SQLITE_DBCONFIG_ENABLE_TRIGGER) and
   returns whether they are on afterwards, or -1 when SQLite refused. */
static inline int csqlite_enable_triggers(sqlite3 *db, int on) {
    int now = -1;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, on, &now) != SQLITE_OK) return -1;
    return now;
}
#endif
