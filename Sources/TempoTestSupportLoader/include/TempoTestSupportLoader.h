#ifndef TEMPO_TEST_SUPPORT_LOADER_H
#define TEMPO_TEST_SUPPORT_LOADER_H

/// Whether this image's load-time constructor has run: it registers TempoTestSupport's XCTest
/// observer as the test process loads, before XCTest starts the first test.
int tempo_test_support_loader_ran(void);

#endif
