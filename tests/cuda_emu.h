/*
 * Host-side emulation of the CUDA built-ins that s2sad's kernels (primal and generated) use,
 * so that they compile with g++ and run on a machine without a GPU, for the tests.
 *
 * A launch runs the grid one block after another. The threads of a block are fibers
 * (ucontext) run one at a time, round robin: each runs until it reaches a barrier
 * (__syncthreads, or the two barriers inside a warp shuffle) or its end, then the next one
 * runs. A round ends when every thread of the block stands at its next barrier, so code
 * between two barriers runs, thread after thread, exactly as a barrier promises. That makes
 *
 *   threadIdx, blockIdx, blockDim, gridDim   globals, set before a thread is resumed;
 *   __shared__                               static storage: one copy, and one block runs
 *                                            at a time;
 *   atomicAdd(p, v)                          *p += v (only one thread runs at any moment);
 *   __trap()                                 abort();
 *   __ldg, rsqrt, rsqrtf, min, max           their meaning, for primals that call them.
 *   __shfl_down_sync(mask, v, d)             every thread of the block posts v, barrier,
 *                                            reads lane + d of its warp (its own v past the
 *                                            end of the warp or block), barrier;
 *   __shfl_xor_sync(mask, v, m)              the same, reading lane ^ m;
 *   __shfl_up_sync(mask, v, d), __shfl_sync  the same, reading lane - d (its own v below lane d),
 *                                            or lane k of the warp;
 *   __activemask, __match_all_sync           a thread alone in its warp (one runs at a time).
 *
 * Barriers and shuffles must be reached by every thread of the block (as CUDA requires of
 * __syncthreads and of a full-warp shuffle); a kernel that does not would misbehave here
 * as it may on a GPU. Launch with emu::launch(grid, block, [&] { kernel(args...); }). Plain C headers only, so
 * that each test build compiles quickly.
 */
#ifndef S2SAD_TESTS_CUDA_EMU_H
#define S2SAD_TESTS_CUDA_EMU_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __shared__ static

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

static dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace emu {

struct Thread {
    ucontext_t context;
    dim3 index;
    bool done;
};

static ucontext_t scheduler;
static Thread *current = nullptr;
static void (*run_body)(void *) = nullptr;  // calls the kernel (a lambda, through body)
static void *body = nullptr;
static const size_t stack_size = 1 << 16;
// Kept between launches (the libraries stay loaded in the test process): allocated once, grown.
static unsigned capacity = 0;
static char **stacks = nullptr;
static Thread *threads = nullptr;
static double *posted = nullptr;  // what each thread of the block offers to a shuffle

static void barrier() { swapcontext(&current->context, &scheduler); }

static void run_thread() {
    run_body(body);
    current->done = true;
    swapcontext(&current->context, &scheduler);  // never resumed
}

static unsigned linear_thread() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

static void reserve(unsigned size) {
    if (size <= capacity) return;
    stacks = (char **)realloc(stacks, size * sizeof(char *));
    for (unsigned t = capacity; t < size; t++) stacks[t] = (char *)malloc(stack_size);
    threads = (Thread *)realloc(threads, size * sizeof(Thread));
    posted = (double *)realloc(posted, size * sizeof(double));
    capacity = size;
}

/* Makes thread t of the block a fiber at the start of the kernel. */
static void prepare(unsigned t, dim3 block) {
    Thread &th = threads[t];
    th.index = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
    th.done = false;
    getcontext(&th.context);
    th.context.uc_stack.ss_sp = stacks[t];
    th.context.uc_stack.ss_size = stack_size;
    th.context.uc_link = nullptr;
    makecontext(&th.context, run_thread, 0);
}

/* Resumes thread t until its next barrier or its end; whether it is still running. */
static bool resume(unsigned t) {
    Thread &th = threads[t];
    current = &th;
    threadIdx = th.index;
    swapcontext(&scheduler, &th.context);
    return !th.done;
}

/* Runs one block: rounds, each taking every thread to its next barrier. */
static void run_block(dim3 block) {
    unsigned size = block.x * block.y * block.z;
    for (unsigned t = 0; t < size; t++) prepare(t, block);
    for (bool running = true; running;) {
        running = false;
        for (unsigned t = 0; t < size; t++) {
            if (!threads[t].done && resume(t)) running = true;
        }
    }
    current = nullptr;
}

/* Runs kernel() once per thread of the grid: blocks in order, each block's threads as fibers. */
template <class F>
inline void launch(dim3 grid, dim3 block, F kernel) {
    gridDim = grid;
    blockDim = block;
    // body points at the caller's lambda only while the launch runs (reset below); newer g++
    // cannot see that and warns of a dangling pointer.
#if defined(__GNUC__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
    body = &kernel;
#if defined(__GNUC__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif
    run_body = [](void *k) { (*(F *)k)(); };
    reserve(block.x * block.y * block.z);
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = dim3(bx, by, bz);
                run_block(block);
            }
    body = nullptr;
}

}  // namespace emu

inline void __syncthreads() { emu::barrier(); }

inline void __trap() { abort(); }  // a kernel's fatal error

// CUDA's math shorthands, for emulated primals that use them.
template <class T>
inline T __ldg(const T *p) { return *p; }
inline double rsqrt(double v) { return 1.0 / sqrt(v); }
inline float rsqrtf(float v) { return 1.0f / sqrtf(v); }
// CUDA's math beyond C's, by the definitions CUDA gives (the host has none of them).
inline double sinpi(double v) { return sin(M_PI * v); }
inline double cospi(double v) { return cos(M_PI * v); }
inline float sinpif(float v) { return sinf((float)M_PI * v); }
inline float cospif(float v) { return cosf((float)M_PI * v); }
inline double normcdf(double v) { return 0.5 * erfc(-v * M_SQRT1_2); }
inline float normcdff(float v) { return 0.5f * erfcf(-v * (float)M_SQRT1_2); }
inline double exp10(double v) { return pow(10.0, v); }
inline float exp10f(float v) { return powf(10.0f, v); }
inline double rcbrt(double v) { return 1.0 / cbrt(v); }
inline double rhypot(double a, double b) { return 1.0 / hypot(a, b); }
inline double norm3d(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }
inline float __saturatef(float v) { return fminf(fmaxf(v, 0.0f), 1.0f); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }

template <class T>
inline T atomicAdd(T *address, T value) {
    T old = *address;
    *address = old + value;
    return old;
}

// Warp votes. One thread runs at a time here, so a thread finds itself alone in its warp: a
// warp diverged thread by thread, which CUDA allows (code must not count on lanes arriving
// together, and s2sad's warp_sum_add does not).
inline unsigned __activemask() { return 1u << (emu::linear_thread() % 32); }

template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int *pred) {
    (void)value;
    *pred = 1;  // a single lane agrees with itself
    return mask;
}

namespace emu {
/* A shuffle: every thread of the block posts value, then reads what thread `from` of its warp
   posted, or keeps its own where `from` is outside the warp or the block. */
template <class T>
inline T shuffle(T value, unsigned from) {
    unsigned t = linear_thread();
    unsigned size = blockDim.x * blockDim.y * blockDim.z;
    posted[t] = (double)value;
    barrier();
    T out = from / 32 == t / 32 && from < size ? (T)posted[from] : value;
    barrier();
    return out;
}
}  // namespace emu

template <class T>
inline T __shfl_xor_sync(unsigned mask, T value, int lane_mask) {
    (void)mask;
    return emu::shuffle(value, emu::linear_thread() ^ (unsigned)lane_mask);
}

template <class T>
inline T __shfl_down_sync(unsigned mask, T value, unsigned delta) {
    (void)mask;
    return emu::shuffle(value, emu::linear_thread() + delta);
}

template <class T>
inline T __shfl_up_sync(unsigned mask, T value, unsigned delta) {
    (void)mask;
    unsigned t = emu::linear_thread();
    return emu::shuffle(value, t % 32 >= delta ? t - delta : t);  // (its own v below lane delta)
}

template <class T>
inline T __shfl_sync(unsigned mask, T value, int lane) {
    (void)mask;
    unsigned t = emu::linear_thread();
    return emu::shuffle(value, t - t % 32 + (unsigned)lane);
}

#endif
