// The mutex Tempo's locks use on Linux: a futex word that a running thread may take as soon as
// it is released.
//
// The standard library's `Mutex` is a priority-inheritance futex there (FUTEX_LOCK_PI), whose
// contended unlock hands the lock to the waiter the kernel picks: nobody can take it until
// that thread has been scheduled. The test registry's lock is taken on the way of many jobs of
// every test; with more runnable threads than cores (tests in parallel on a busy machine),
// each hand-off waited for a time slice, and the whole test process crawled behind it.
//
// The word is 0 when unlocked, 1 when locked with no thread asleep on it, 2 when locked and a
// thread may sleep on it (the contended path always marks it so, and its unlock wakes one
// sleeper, which then competes with running threads again). Lock and unlock are one atomic
// operation each when nobody waits; they are inline so that Swift code inlines them.
//
//   uint32_t word = 0;
//   tempo_futex_lock(&word);
//   tempo_futex_unlock(&word);

#ifndef TEMPO_FUTEX_H
#define TEMPO_FUTEX_H

#if defined(__linux__)

#include <stdbool.h>
#include <stdint.h>

/// Takes `word`, which another thread holds: spins briefly, then sleeps until it is released.
void tempo_futex_lock_contended(uint32_t *word);

/// Wakes one thread asleep on `word`, just released.
void tempo_futex_wake(uint32_t *word);

/// Takes the lock `word`, waiting for it if another thread holds it.
static inline void tempo_futex_lock(uint32_t *word) {
  uint32_t expected = 0;
  if (__builtin_expect(__atomic_compare_exchange_n(word, &expected, 1, false, __ATOMIC_ACQUIRE,
                                                   __ATOMIC_RELAXED),
                       1)) {
    return;
  }
  tempo_futex_lock_contended(word);
}

/// Releases the lock `word`, held by the calling thread, waking a sleeper if there may be one.
static inline void tempo_futex_unlock(uint32_t *word) {
  if (__builtin_expect(__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) != 1, 0)) {
    tempo_futex_wake(word);
  }
}

#endif  // defined(__linux__)

#endif  // TEMPO_FUTEX_H
