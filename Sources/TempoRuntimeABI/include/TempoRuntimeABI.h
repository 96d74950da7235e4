// The Swift concurrency runtime's executor hooks, as Tempo stores and calls them.
//
// The runtime declares each hook as a variable holding a function pointer, and passes each hook
// the runtime's own implementation as `original` (swiftlang/swift,
// include/swift/Runtime/ConcurrencyHooks.def and stdlib/public/Concurrency/ConcurrencyHooks.cpp):
//
//   void (*swift_task_enqueueGlobal_hook)(Job *job, void (*original)(Job *));
//   void (*swift_task_enqueueMainExecutor_hook)(Job *job, void (*original)(Job *));
//   SerialExecutorRef (*swift_task_getMainExecutor_hook)(SerialExecutorRef (*original)(void));
//   bool (*swift_task_isMainExecutor_hook)(SerialExecutorRef, bool (*original)(SerialExecutorRef));
//
// Declaring them here, rather than as Swift `@convention(thin)` function types, matters for
// pointer authentication. In an arm64e process the runtime authenticates the hook it calls, and
// Tempo authenticates the `original` it is given:
// - Through Swift 6.3 (every runtime Apple has shipped, through the 26.x systems) the hook
//   variables and `original` are plain C function pointers: key IA, discriminator 0. Swift signs
//   a `@convention(c)` function value and authenticates a call through one with exactly that
//   schema, and these typedefs import as `@convention(c)`. A `@convention(thin)` function value
//   is signed with a discriminator derived from its Swift type instead, which the runtime would
//   reject at the first hooked enqueue (`Documentation/arm64e-hook-signing.md` shows the IR).
// - swiftlang/swift#91738 (merged to main in August 2026) gives the hook variables a schema of
//   their own, with a non-zero discriminator and address diversity. No shipped system is known
//   to have it; where the runtime may, Tempo installs no hook (`RuntimeHooks.signing`).
//
// The calling convention: the runtime declares these functions `swiftcall`, and Swift calls and
// defines `@convention(c)` functions with the C convention. For these arguments (pointers, a
// two-word struct, a boolean result) the two conventions pass and return everything in the same
// registers on arm64, arm64e and x86_64, the architectures Tempo's test executor runs on.

#ifndef TEMPO_RUNTIME_ABI_H
#define TEMPO_RUNTIME_ABI_H

#include <stdbool.h>
#include <stdint.h>

#if __has_feature(nullability)
#pragma clang assume_nonnull begin
#endif

/// The runtime's `SerialExecutorRef`: an executor's identity and its witness table, with flag bits
/// (Swift's `UnownedSerialExecutor`, two words).
typedef struct TempoExecutorRef {
  const void *_Nullable identity;
  uintptr_t implementation;
} TempoExecutorRef;

/// `swift_task_enqueueGlobal_original` and `swift_task_enqueueMainExecutor_original`.
typedef void (*TempoJobOriginal)(void *job);
/// `swift_task_enqueueGlobal_hook` and `swift_task_enqueueMainExecutor_hook`.
typedef void (*TempoJobHook)(void *job, TempoJobOriginal original);
/// `swift_task_getMainExecutor_original`.
typedef TempoExecutorRef (*TempoGetMainOriginal)(void);
/// `swift_task_getMainExecutor_hook`.
typedef TempoExecutorRef (*TempoGetMainHook)(TempoGetMainOriginal original);
/// `swift_task_isMainExecutor_original`.
typedef bool (*TempoIsMainOriginal)(TempoExecutorRef executor);
/// `swift_task_isMainExecutor_hook`.
typedef bool (*TempoIsMainHook)(TempoExecutorRef executor, TempoIsMainOriginal original);

/// Whether this process authenticates code pointers (arm64e).
bool tempo_authenticates_code_pointers(void);

/// Whether `task`, a live task (`AsyncTask *`), is running on a thread or queued to run (on an
/// actor, say), as its status word says: its `IsEnqueued` flag, and its `IsRunning` flag where
/// the runtime has no priority escalation (Linux, Windows, Android) or the owner of its
/// execution lock where it has (Apple's systems). False once it has suspended, or ended. The
/// layout is the one the runtime mirrors for debuggers (swiftlang/swift,
/// include/swift/RemoteInspection/RuntimeInternals.h): the status follows the job header, the
/// resume context and the exclusivity access set.
bool tempo_task_is_runnable(const void *task);

/// Whether `task`, a task kept alive (`tempo_task_retain`), has ended: its `IsComplete` flag
/// (0x2000), set in every build of the runtime as the task completes its future, in the same
/// status word as `tempo_task_is_runnable` reads.
bool tempo_task_is_complete(const void *task);

/// Whether a task has a task executor preference (SE-0417): the status flag
/// `HasTaskExecutorPreference` (0x8000), set while a preference record is pushed. Read with no
/// lock; the runtime sets it before the task can run with the preference.
bool tempo_task_has_executor_preference(const void *task);

/// Whether `task`, a task kept alive, is suspended waiting for another task's value or for a
/// task group: its `HasTaskDependency` flag (0x4000) is set, and the newest record of its
/// status is the dependency record the runtime pushes as the task suspends, whose kind says a
/// task (1) or a group (3). A wait on a continuation (2) is not one: `Task.yield()` suspends on
/// a continuation too, and a yielded task waiting for a thread must not read as waiting. The
/// record's layout (its dependency's kind in its fifth word) is read on 64-bit systems only;
/// elsewhere, false.
bool tempo_task_awaits_task_or_group(const void *task);

/// Where `task`, a task kept alive, resumes when it next runs: the resume function the runtime
/// stores in its job header (the word after the two reserved ones) as the task suspends, with
/// any pointer signature stripped. A running task keeps the one it last resumed at until it
/// suspends again. Compared, never called.
const void *_Nullable tempo_task_resume_function(const void *task);

/// Cancels `task`, a task kept alive: `swift_task_cancel`, what `Task.cancel()` calls (one
/// pointer argument, passed alike by the Swift and C conventions).
void tempo_task_cancel(const void *task);

/// The task the current thread runs, or null: `swift_task_getCurrent`, what
/// `withUnsafeCurrentTask` reads (no argument, a pointer returned alike by the Swift and C
/// conventions). Called on the path of every job, where a debug build would call the generic
/// `withUnsafeCurrentTask` and its closure instead.
const void *_Nullable tempo_current_task(void);

/// Keeps `task` (an `AsyncTask *`) alive: `swift_retain`.
void tempo_task_retain(const void *task);

/// Lets go of a `task` kept by `tempo_task_retain`: `swift_release`.
void tempo_task_release(const void *task);

// The operating system's view of a thread: whether it waits in the kernel or could run. The
// main-queue stall watch reads it for the thread that drains the main queue, to tell a blocked
// main queue (its thread waits: a semaphore, a lock, a nested run loop idle in the kernel) from
// a starved one (its thread is runnable, waiting for a core on a loaded machine).

/// The current thread, as `tempo_thread_runs` takes it: its kernel thread ID on Linux (cached
/// in a thread-local after the first call), its Mach port on Darwin, 0 elsewhere.
uint64_t tempo_current_thread(void);

/// Whether `thread` (from `tempo_current_thread`) could run now: 1 when it runs or is ready to
/// run (Linux `R`, Darwin `TH_STATE_RUNNING`), 0 when it waits in the kernel (Linux `S`, `D`,
/// `T`, `t`; Darwin waiting, uninterruptible or stopped), -1 when that cannot be read (the
/// thread has ended, or the platform has no such reading). Linux reads the state field of
/// `/proc/self/task/<thread>/stat`; Darwin calls `thread_info(THREAD_BASIC_INFO)`.
int tempo_thread_runs(uint64_t thread);

#if __has_feature(nullability)
#pragma clang assume_nonnull end
#endif

#endif
