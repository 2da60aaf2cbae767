// One temporary folder for the whole test process, removed when it exits: before any test runs, TMPDIR names a new
// folder under the temporary directory, so every file a test makes there (Foundation's temporaryDirectory reads
// TMPDIR), and every file the apnsim processes it starts make (they inherit TMPDIR), goes when the tests end. Folders
// left by a test process that was killed are removed by the next one. Without it, each `swift test` left about 200
// folders and files behind: a device's data, a gateway's attachment copies, worlds and scenarios written to be read.
#define _XOPEN_SOURCE 700
#include "scratch.h"
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char folder[4096];
static pid_t owner;

static int removeEntry(const char *path, const struct stat *status, int flag, struct FTW *walk) {
    (void)status; (void)flag; (void)walk;
    remove(path);
    return 0;
}

static void removeTree(const char *path) {
    nftw(path, removeEntry, 16, FTW_DEPTH | FTW_PHYS);
}

static void removeScratch(void) {
    // A child forked from the test process (before it execs) exits without removing its parent's folder.
    if (getpid() == owner && folder[0] != '\0') removeTree(folder);
}

// Removes `base/apnsim-test-run.PID.*` folders whose process has gone.
static void removeAbandoned(const char *base) {
    DIR *directory = opendir(base);
    if (directory == NULL) return;
    const char *prefix = "apnsim-test-run.";
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (strncmp(entry->d_name, prefix, strlen(prefix)) != 0) continue;
        long pid = strtol(entry->d_name + strlen(prefix), NULL, 10);
        if (pid <= 0 || pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", base, entry->d_name) < (int)sizeof path) removeTree(path);
    }
    closedir(directory);
}

__attribute__((constructor)) static void makeScratch(void) {
    const char *given = getenv("TMPDIR");
    const char *base = given != NULL && given[0] != '\0' ? given : "/tmp";
    removeAbandoned(base);
    if (snprintf(folder, sizeof folder, "%s/apnsim-test-run.%ld.XXXXXX", base, (long)getpid()) >= (int)sizeof folder
        || mkdtemp(folder) == NULL) {
        folder[0] = '\0';  // the tests then use the temporary directory itself, as before
        return;
    }
    owner = getpid();
    setenv("TMPDIR", folder, 1);
    // apnsim's per-user data folder (devices' identities, a generated PKI) goes there too, not in the user's home.
    char home[4096 + 16];
    snprintf(home, sizeof home, "%s/apnsim-home", folder);
    setenv("APNSIM_HOME", home, 1);
    atexit(removeScratch);
}

const char *apnsim_test_scratch_folder(void) {
    return folder;
}
