#ifndef APNSIM_TEST_SCRATCH_H
#define APNSIM_TEST_SCRATCH_H

/// The folder TMPDIR names for this test process, removed when it exits; empty when it could not be made.
const char *apnsim_test_scratch_folder(void);

#endif
