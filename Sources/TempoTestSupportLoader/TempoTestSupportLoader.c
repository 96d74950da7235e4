#include "TempoTestSupportLoader.h"

// TempoTestSupport's XCTest observer must be registered before XCTest starts the first test:
// XCTest tells an observer of what happens after it registers, and a test that makes its first
// clock inside its body (or a test process that runs one test, as `swift test --parallel`
// does) would otherwise end unseen. A library has no call of its own before that, so this
// constructor makes one as the test process loads the code: TempoTestSupport, linked only into
// test targets, registers the observer there (`tempo_test_support_loaded`, in Swift).
extern void tempo_test_support_loaded(void);

static int loaderRan = 0;

__attribute__((constructor)) static void tempo_test_support_load(void) {
  loaderRan = 1;
  tempo_test_support_loaded();
}

int tempo_test_support_loader_ran(void) { return loaderRan; }
