/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: calls and returns reconstructed from the decoded flow.
 *
 * Per source (hart), the frames the flow enters and leaves, from the
 * instructions that transfer control and their targets, never from a
 * frame pointer: a call (an instruction that links x1 or x5) enters its
 * target's function; a jump to an address some frame returns to leaves
 * the frames above that one (a return, or a longjmp-like unwind); a jump
 * to the start of another function replaces the top frame (a tail call);
 * a trap enters its handler, an xRET leaves up to that trap's frame.
 * Where the flow cannot be followed (a gap: trace lost, filtered, code no
 * image holds) every frame is left and the flow starts again from the
 * function it is in, never from made-up callers.  docs/system/riscv/
 * trace.rst ("Calls, profiles and timelines") says what each output
 * makes of it.
 *
 * The frames build a calling context tree: a node per function in the
 * context of its callers, with the instructions retired in it and the
 * times it was entered, from which the profiles are made; the timeline
 * outputs take the entries and exits as they come (EtdCallSink).
 */
#ifndef ETRACE_CALLS_H
#define ETRACE_CALLS_H

#include "etrace-decode.h"

/* How a frame was entered. */
typedef enum EtdEnter {
    ETD_ENTER_ROOT,         /* the flow starts (again) in it */
    ETD_ENTER_CALL,
    ETD_ENTER_TAIL,         /* a jump to its start from another function */
    ETD_ENTER_TRAP,
} EtdEnter;

typedef struct EtdCallNode EtdCallNode;
struct EtdCallNode {
    EtdCallNode *parent;
    EtdCallNode *child;     /* the first of its callees */
    EtdCallNode *sibling;   /* the next callee of its parent */
    uint64_t func;          /* the function's symbol, else its entry */
    uint64_t self;          /* instructions retired in it */
    uint64_t total;         /* ... and in its callees, of frames left */
    uint64_t calls;         /* frames entered */
    uint8_t how;            /* EtdEnter of the frames (a trap's apart) */
    uint8_t priv;           /* privilege of its first frame */
    unsigned depth;         /* 1 for the function the flow starts in */
    char *label;            /* its name, once asked (etd_calls_label()) */
    char *json;             /* ... as a JSON string's contents (chrome.c) */
};

/* What the reconstruction reports as it goes. */
typedef struct EtdCallSink {
    /* A frame of @n is entered (@how) or left, at @time. */
    void (*enter)(void *opaque, unsigned src, EtdCallNode *n,
                  EtdEnter how, uint64_t time);
    void (*leave)(void *opaque, unsigned src, EtdCallNode *n,
                  uint64_t time);
    /* A trap is taken; @epc as EtdSink.trap says. */
    void (*trap)(void *opaque, unsigned src, bool interrupt, unsigned cause,
                 uint64_t epc, uint64_t time);
    /* The privilege changes (E-Trace codes). */
    void (*priv)(void *opaque, unsigned src, uint8_t from, uint8_t to,
                 uint64_t time);
    /* The flow could not be followed: every frame was left. */
    void (*gap)(void *opaque, unsigned src, const char *why,
                uint64_t time);
    void *opaque;
} EtdCallSink;

typedef struct EtdFrame {
    EtdCallNode *node;
    uint64_t ret;           /* where a return to its caller goes */
    uint64_t enter_insns;
    uint8_t pending;        /* a trap's: the transfer it interrupted */
    uint64_t pending_ret;
} EtdFrame;

/* The instructions a context retired in a block (etd_calls_by_insn()). */
typedef struct EtdInsnCost {
    EtdCallNode *node;
    const EtdBlock *b;
    int64_t diff[];         /* a run: +1 at its first, -1 after its last */
} EtdInsnCost;

#define ETD_COST_CACHE  1024

typedef struct EtdCalls {
    EtdImage *img;
    const EtdCallSink *sink;
    unsigned src;
    EtdCallNode root;       /* above the functions the flow starts in */
    GArray *stack;          /* EtdFrame, the innermost last */
    EtdCallNode *top;       /* the innermost frame's node, NULL: none */
    uint64_t insns;         /* instructions retired */
    uint64_t time;          /* the last timestamp ... */
    uint64_t time_insns;    /* ... after this many instructions */
    bool timed;             /* the clock is timestamps, not insns */
    uint8_t priv;
    bool priv_known;
    /*
     * The transfer the last run ended with, resolved where the next one
     * starts (ETD_PENDING_*), and the return address of a call.
     */
    uint8_t pending;
    uint64_t pending_ret;
    /* A trap's: the transfer it came between (an interrupt) */
    uint8_t trap_was;
    uint64_t trap_was_ret;
    uint64_t nodes;
    /* with etd_calls_by_insn(): EtdInsnCost by (node, block) */
    GHashTable *costs;
    struct {
        const EtdCallNode *node;
        const EtdBlock *b;
        EtdInsnCost *cost;
    } *cost_cache;
} EtdCalls;

/**
 * etd_calls_init: an empty stack for the flow of source @src
 * @timed: the clock is the stream's timestamps (else retired
 *         instructions)
 * @sink: NULL, or where entries and exits go
 */
void etd_calls_init(EtdCalls *c, EtdImage *img, unsigned src, bool timed,
                    const EtdCallSink *sink);

/*
 * Count the instructions each context retires per address too (for
 * etd_calls_insn_costs()), at the cost of a lookup per run.
 */
void etd_calls_by_insn(EtdCalls *c);

/*
 * With etd_calls_by_insn(): @fn for every instruction retired, with its
 * context and the times it retired there.
 */
void etd_calls_insn_costs(EtdCalls *c,
                          void (*fn)(void *opaque, EtdCallNode *n,
                                     uint64_t addr, uint64_t count),
                          void *opaque);

/* Free the tree; leave every frame first (etd_calls_finish()). */
void etd_calls_free(EtdCalls *c);

/* Instructions @from .. @from + @n - 1 of @b retire, in @priv. */
void etd_calls_run(EtdCalls *c, const EtdBlock *b, unsigned from,
                   unsigned n, uint8_t priv);

/* A trap before the next instruction reported (EtdSink.trap). */
void etd_calls_trap(EtdCalls *c, bool interrupt, unsigned cause,
                    uint64_t epc);

/* The flow could not be followed: leave every frame (EtdSink.gap). */
void etd_calls_gap(EtdCalls *c, const char *why);

/* A packet's timestamp (EtdSink.time). */
void etd_calls_time(EtdCalls *c, uint64_t time);

/* The stream ended: leave every frame. */
void etd_calls_finish(EtdCalls *c);

/*
 * The clock: the instructions retired, or the last timestamp plus the
 * instructions retired since (exact when the guest's clock counts
 * instructions, -icount shift=0; else between two timestamps the
 * instructions stand for time).
 */
static inline uint64_t etd_calls_now(const EtdCalls *c)
{
    return c->timed ? c->time + (c->insns - c->time_insns) : c->insns;
}

/*
 * The name of @n's function into @buf: its symbol, "0x..." without one;
 * a trap's handler as "[trap] NAME".
 */
const char *etd_calls_name(EtdCalls *c, const EtdCallNode *n, char *buf,
                           size_t len);

/* etd_calls_name() of @n, made once and kept with it. */
const char *etd_calls_label(EtdCalls *c, EtdCallNode *n);

/**
 * etd_calls_folded: the folded stacks of the tree
 * @out: one line per context with instructions of its own: "hart SRC",
 *       then the functions from the outermost, ';' between them, a space
 *       and the instructions (the input of flamegraph.pl, inferno and
 *       speedscope)
 */
void etd_calls_folded(EtdCalls *c, FILE *out);

#endif
