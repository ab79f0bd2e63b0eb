/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace 2.0 instruction trace decoder: shared definitions.
 *
 * The decoder turns an Encapsulation 1.0 stream of te_inst packets, as
 * QEMU's RISC-V trace encoder writes it, back into the instructions the
 * hart retired, given the program images.  It follows the program one
 * basic block at a time: blocks are decoded once, cached, and linked to
 * their inferable successors.
 */
#ifndef ETRACE_DECODE_H
#define ETRACE_DECODE_H

#include "hw/riscv/etrace.h"
#include "hw/riscv/etrace-data.h"
#include "bpred.h"
#include "jtc.h"
#include "retstack.h"

/**
 * EtdError: what the decoder reports as an error, the code of its GErrors
 * (domain ETD_ERROR) and of the errors of a stream; etrace-decode prints
 * etd_error_name() of the code before the message.
 * docs/system/riscv/trace.rst lists them.  The values are not stable,
 * the names are.
 */
typedef enum EtdError {
    /* The stream (stream.c). */
    ETD_ERR_TRUNCATED = 1,          /* the stream ends inside a packet */
    ETD_ERR_NULL_FLOW,              /* a null packet with a flow field */
    ETD_ERR_TIMESTAMP,              /* extend = 1, timestamp_bytes 0 */
    ETD_ERR_UNKNOWN_PACKET,         /* a packet the decoder cannot read */
    ETD_ERR_NO_SYNC_SEQUENCE,       /* ends before a sync sequence */
    ETD_ERR_NO_SYNC,                /* a source never synchronised */
    ETD_ERR_BAD_DATA,               /* a te_data packet not readable */
    ETD_ERR_DATA_HISTORY,           /* a compressed te_data, no history */
    /* Following the program (decoder.c). */
    ETD_ERR_BRANCHES_MISSING,       /* a branch with no outcome left */
    ETD_ERR_BRANCHES_UNUSED,        /* outcomes left at a reported jump */
    ETD_ERR_BRANCH_MAP_OVERFLOW,    /* over 63 outcomes pending */
    ETD_ERR_NO_PATH,                /* the address not reached in time */
    ETD_ERR_JUMP_BEFORE_BRANCHES,   /* a jump before the last branch */
    ETD_ERR_NO_CODE,                /* no instruction at pc */
    ETD_ERR_OUTSIDE_IMAGES,         /* a reported jump out of the images */
    ETD_ERR_TRAP_BRANCH_MISSING,    /* a trap after a branch, no outcome */
    ETD_ERR_EPC_UNKNOWN,            /* a trap after an uninferable jump */
    ETD_ERR_BPRED_OFF,              /* format 0.0, no branch prediction */
    ETD_ERR_JTC_OFF,                /* format 0.1, no jump target cache */
    ETD_ERR_JTC_EMPTY,              /* format 0.1 of an empty entry */
    /* The command line and the program images (main.c, image.c). */
    ETD_ERR_USAGE,                  /* the command line does not parse */
    ETD_ERR_BAD_VALUE,              /* an option's value is not valid */
    ETD_ERR_PARAM,                  /* --param NAME=VALUE not valid */
    ETD_ERR_NO_IMAGE,               /* neither --elf nor --bin */
    ETD_ERR_IO,                     /* a file not opened, read, written */
    ETD_ERR_BAD_ELF,                /* not an ELF file, or a broken one */
    ETD_ERR_NOT_RISCV,              /* an ELF file of another machine */
    ETD_ERR_EMPTY_IMAGE,            /* an empty raw binary */
    ETD_ERR_BAD_CODE,               /* a code side stream not readable */
    ETD_ERR__MAX
} EtdError;

#define ETD_ERROR etd_error_quark()
GQuark etd_error_quark(void);

/**
 * etd_error_name: the name of an error code
 * @code: the code
 *
 * Returns: "ETD_ERR_NO_SYNC" and so on ("ETD_ERR_UNKNOWN" for a value
 * that is no EtdError).
 */
const char *etd_error_name(EtdError code);

/* How the last instruction of a block transfers control. */
typedef enum EtdEnd {
    ETD_END_SEQ,        /* block cut short: the next one follows on */
    ETD_END_BRANCH,     /* conditional branch */
    ETD_END_JUMP,       /* inferable jump (jal, c.j, c.jal) */
    ETD_END_UNINF,      /* uninferable: jalr, c.jr, c.jalr, table jump */
    ETD_END_XRET,       /* mret, sret, mnret, dret: also uninferable */
    ETD_END_NOCODE,     /* the block runs into an address with no code */
} EtdEnd;

/* A block holds at most this many instructions. */
#define ETD_BLOCK_MAX   64

typedef struct EtdBlock EtdBlock;
struct EtdBlock {
    uint64_t start;
    uint64_t last;          /* address of the last instruction */
    uint64_t target;        /* ETD_END_BRANCH (taken), ETD_END_JUMP */
    uint64_t rvc;           /* bit i: instruction i is 2 bytes long */
    uint64_t data;          /* bit i: instruction i accesses data */
    EtdBlock *next_seq;     /* the block at last + size, once looked up */
    EtdBlock *next_target;  /* the block at target, once looked up */
    uint8_t count;          /* instructions, 0 for ETD_END_NOCODE */
    uint8_t last_size;
    uint8_t end;            /* EtdEnd */
    bool call;              /* the last instruction links (x1/x5) */
    /* the last instruction, to a return stack: a call, a return */
    bool ir_call;
    bool ir_ret;
    /*
     * Sequentially inferable jumps: ETD_END_UNINF by a jalr, c.jr or
     * c.jalr: its rs1 and offset; the register the instruction before it
     * in the block loads with a constant (lui, c.lui, auipc), and the
     * value; the same of the last instruction (a block cut after it).
     */
    uint8_t jump_rs1;
    int32_t jump_imm;
    uint8_t prev_const_rd;
    uint64_t prev_const;
    uint8_t last_const_rd;
    uint64_t last_const;
    /*
     * In a view of the code side stream: the view's generation when the
     * block was last found current, a digest of the code it was decoded
     * from, the other versions of the code at its start.
     */
    uint64_t gen;
    uint64_t sig;
    EtdBlock *alt;
};

/* One instruction, as etd_image_insn() decodes it. */
typedef struct EtdInsn {
    uint64_t target;
    uint8_t size;
    uint8_t end;            /* EtdEnd; ETD_END_SEQ when it falls through */
    bool call;
    bool ir_call;           /* jal, jalr with rd = x1; c.jal, c.jalr */
    bool ir_ret;            /* jalr x0, imm(x1); c.jr x1 */
    bool trap_insn;         /* ecall, ebreak, c.ebreak */
    uint8_t const_rd;       /* lui, c.lui, auipc: rd, and the value */
    uint64_t const_value;
    uint8_t jump_rs1;       /* jalr, c.jr, c.jalr: rs1, and the offset */
    int32_t jump_imm;
    /*
     * Data accesses it retires (data trace), ETD_DATA_VECTOR for a vector
     * load or store (one per active element); they are multi-memory
     * accesses (cm.push, cm.pop*, vector) when @data_mma.
     */
    uint8_t data;
    bool data_mma;
    /*
     * Of multi-memory accesses: all loads (ETD_DATA_LOAD) or stores
     * (ETD_DATA_STORE), all of 2^@data_size bytes; ETD_DATA_ANY where
     * the code does not say.
     */
    uint8_t data_dir;
    uint8_t data_size;
} EtdInsn;

#define ETD_DATA_VECTOR     UINT8_MAX
#define ETD_DATA_ANY        UINT8_MAX
#define ETD_DATA_LOAD       0
#define ETD_DATA_STORE      1

typedef struct EtdImage EtdImage;

/*
 * The code side stream of QEMU's trace system (hw/riscv/trace-code.h):
 * the code the harts translated, read whole by etd_code_load(); a
 * source's records are applied in order by its decoder.
 */
typedef struct EtdCode EtdCode;
typedef struct EtdCodeSrc EtdCodeSrc;

/*
 * Only the records of hart @hart, unless it is negative; then no two
 * harts may share a source.  Errors ETD_ERR_IO, ETD_ERR_BAD_CODE.
 */
EtdCode *etd_code_load(const char *path, int hart, GError **errp);
void etd_code_free(EtdCode *c);
/* The records of source @src (none if the stream has none of it). */
EtdCodeSrc *etd_code_source(EtdCode *c, unsigned src);
/*
 * Apply the records made up to the point the source's decoder is at:
 * @pos te_inst packets processed, then @branches branch outcomes taken
 * following the next.  Returns whether the code any view sees may have
 * changed; *@wait is the branch outcomes the next record waits for
 * (0: it waits for the next packet).
 */
bool etd_code_catch_up(EtdCodeSrc *cs, uint64_t pos, uint64_t branches,
                       uint64_t *wait);
/*
 * A support packet says trace_lost: apply the records up to the next
 * LOST record and set *@pos to the position it gives (the packet is the
 * one after it); *@pos unchanged when there is none.
 */
bool etd_code_lost(EtdCodeSrc *cs, uint64_t *pos);
/* The @len bytes at @va in privilege @priv into @buf, when known. */
bool etd_code_read(EtdCodeSrc *cs, unsigned priv, uint64_t va,
                   uint8_t *buf, unsigned len);
/* Changes when the code the view of @priv sees may have changed. */
const uint64_t *etd_code_gen(const EtdCodeSrc *cs, unsigned priv);
void etd_code_stats(const EtdCode *c, uint64_t *code, uint64_t *maps,
                    uint64_t *bytes, uint64_t *changes);

EtdImage *etd_image_new(void);
/*
 * The image of @base as source @code sees it in privilege @priv (an
 * E-Trace privilege code): the code of the side stream first, then
 * @base's segments; @base's symbols.  Free it before @base.
 */
EtdImage *etd_image_new_view(EtdImage *base, EtdCodeSrc *code,
                             unsigned priv);

/**
 * etd_image_new_overlay: an image of its own over @under
 * @under: read where the new image holds no code; its settings (rv32,
 *         Zc, ...) are copied, so set them first
 *
 * Code is read from the overlay's own segments first, then from @under;
 * so are symbols, for addresses in the overlay's segments.  Free it
 * before @under.
 */
EtdImage *etd_image_new_overlay(EtdImage *under);
void etd_image_free(EtdImage *img);

/**
 * etd_image_add_elf: load the PT_LOAD segments and symbols of an ELF file
 * @img: image set
 * @path: file
 * @offset: added to every address of the file (a relocated load)
 * @errp: where an error goes: ETD_ERR_IO, ETD_ERR_BAD_ELF or
 *        ETD_ERR_NOT_RISCV
 */
bool etd_image_add_elf(EtdImage *img, const char *path, uint64_t offset,
                       GError **errp);

/* @len bytes of code at @addr, copied. */
/**
 * etd_image_add_kallsyms: symbols from a Linux /proc/kallsyms listing
 * @path: lines "ADDRESS TYPE NAME [MODULE]"; the code symbols (types t, T,
 *        w, W) are added, a module's under "NAME [MODULE]" (kallsyms
 *        lists them at their load addresses)
 * @count: the symbols added
 * @errp: ETD_ERR_IO, or ETD_ERR_BAD_VALUE for a line not in that form
 *        (its number said) or a listing without any address (read
 *        without the right to see them, every address is 0)
 */
bool etd_image_add_kallsyms(EtdImage *img, const char *path,
                            unsigned *count, GError **errp);

void etd_image_add_mem(EtdImage *img, uint64_t addr, const uint8_t *data,
                       size_t len);

/* A raw binary at @addr; errors ETD_ERR_IO, ETD_ERR_EMPTY_IMAGE. */
bool etd_image_add_bin(EtdImage *img, const char *path, uint64_t addr,
                       GError **errp);

/* Decode Zcmp/Zcmt (cm.*) rather than c.fsdsp/c.sdsp-class encodings. */
void etd_image_set_zc(EtdImage *img, bool zcmp_zcmt);

/*
 * Shadow stacks are on (Zicfiss, xenvcfg.SSE): sspush and sspopchk access
 * memory rather than being no-ops.
 */
void etd_image_set_shadow_stack(EtdImage *img, bool on);

/*
 * Calls and returns for implicit return as protocol 2.1 has them (x1 and
 * x5 links, cm.jalt, cm.popret), not as 2.0's (x1 links only).  Before
 * the first block is looked at.
 */
void etd_image_set_spec_links(EtdImage *img, bool spec);

/* The cached block that starts at @pc; never NULL. */
EtdBlock *etd_image_block(EtdImage *img, uint64_t pc);

/* @b, or the block at its start if the code there changed since. */
EtdBlock *etd_image_block_check(EtdImage *img, EtdBlock *b);

/* The instruction at @pc; false when there is no code there. */
bool etd_image_insn(EtdImage *img, uint64_t pc, EtdInsn *insn);

/* Size of instruction @i of @b. */
static inline unsigned etd_block_insn_size(const EtdBlock *b, unsigned i)
{
    return (b->rvc >> i) & 1 ? 2 : 4;
}

/* Address of instruction @i of @b. */
uint64_t etd_block_insn_addr(const EtdBlock *b, unsigned i);

/*
 * Runs of @b counted in @diff (b->count + 1 entries: a run of
 * instructions @from .. @from + @n - 1 adds one at @from and takes one
 * away at @from + @n, whatever its length): @fn for each instruction
 * that retired, with its address and the times it did.
 */
static inline void etd_block_count_runs(int64_t *diff, unsigned from,
                                        unsigned n)
{
    diff[from]++;
    diff[from + n]--;
}

void etd_block_counts(const EtdBlock *b, const int64_t *diff,
                      void (*fn)(void *opaque, uint64_t addr,
                                 uint64_t count),
                      void *opaque);

/*
 * The symbol (function or label) @pc is at or after: its address into
 * @start and its name into @name (when not NULL); false without one.
 */
bool etd_image_symbol(EtdImage *img, uint64_t pc, uint64_t *start,
                      const char **name);

/* The symbols, in address order: how many; the @k-th. */
unsigned etd_image_symbol_count(EtdImage *img);
void etd_image_symbol_nth(EtdImage *img, unsigned k, uint64_t *addr,
                          const char **name);

/* "function+0xoff" of @pc into @buf, or the hex address. */
const char *etd_image_symbolize(EtdImage *img, uint64_t pc, char *buf,
                                size_t len);

/* Code of 32-bit harts: c.jal rather than c.addiw. */
void etd_image_set_rv32(EtdImage *img, bool rv32);
bool etd_image_rv32(const EtdImage *img);

#define ETD_EPC_UNKNOWN UINT64_MAX
#define ETD_NO_PC       UINT64_MAX

/* The reason of the gap reported when the flow leaves the images. */
#define ETD_GAP_NO_IMAGE "no program image"
/* ... where a jump target cache entry is one the flow there changed. */
#define ETD_GAP_JTC "jump target cache entry set in code no image holds"
/* ... where branch counts need the predictor such code changed. */
#define ETD_GAP_BPRED "branch predictor trained in code no image holds"
/* ... and at the end of a stream whose trace did not end. */
#define ETD_GAP_CUT "end of stream, trace not ended"
/* A return after code no image holds, where calls were not seen. */
#define ETD_GAP_RSTACK "return stack changed in code no image holds"

/* What the decoder reports. */
typedef struct EtdSink {
    /* Instruction retired at @pc in @priv. */
    void (*insn)(void *opaque, unsigned src, uint64_t pc, uint8_t priv);
    /* A run of @n instructions of @b from instruction @from on. */
    void (*run)(void *opaque, unsigned src, const EtdBlock *b,
                unsigned from, unsigned n, uint8_t priv);
    /*
     * A trap; @epc is where the hart was: the instruction that took an
     * exception, the one an interrupt came before; ETD_EPC_UNKNOWN when
     * the trap packet is the first one decoded, or an interrupt comes
     * after an uninferable jump (which the packet does not resolve).
     */
    void (*trap)(void *opaque, unsigned src, bool interrupt,
                 unsigned cause, uint64_t epc, uint64_t tval);
    /* A gap: the trace ended, was lost, or could not be followed. */
    void (*gap)(void *opaque, unsigned src, const char *why);
    /*
     * The timestamp of a packet, once what it reports is reported: after
     * the instruction it reports (or the trap, or the gap).
     */
    void (*time)(void *opaque, unsigned src, uint64_t time);
    /*
     * A te_data packet's access, in stream order; @has its fields
     * (ETRACE_DHAS_*); @time its timestamp when @timed.
     */
    void (*data)(void *opaque, unsigned src, const ETraceDataAccess *a,
                 unsigned has, bool timed, uint64_t time);
    /*
     * A support packet says te_data packets were lost (dloss): after the
     * instructions reported before it, accesses are those of later ones.
     */
    void (*data_lost)(void *opaque, unsigned src);
    /*
     * The flow starts again at @pc without following a path there (a
     * synchronisation after a gap, a trap's handler, a return into the
     * program images): the accesses read before are of instructions not
     * reported, but for those of the instruction at @pc when @own
     * (QEMU's encoder sends an instruction's accesses before the packet
     * that reports it, but a trap packet before the handler's).
     */
    void (*data_align)(void *opaque, unsigned src, uint64_t pc, bool own);
    /*
     * The context changes to @ctx (a synchronisation or context packet
     * carried another one): the instructions from there on are of it.
     */
    void (*context)(void *opaque, unsigned src, uint32_t ctx);
    void *opaque;
} EtdSink;

typedef struct EtdDecoder {
    EtdImage *img;          /* of the current privilege */
    /*
     * With a code side stream: the source's records, the image of each
     * privilege (else NULL, img is all), the image of the last address
     * a packet carried, te_inst packets processed.
     */
    EtdCodeSrc *code;
    EtdImage *views[8];
    EtdImage *addr_img;
    /*
     * With a context field: the context of the instructions followed
     * (the last synchronisation or context packet's), the images of
     * contexts of their own (uint32_t -> EtdImage, NULL: none), the image
     * of the others.
     */
    uint32_t context;
    GHashTable *ctx_imgs;
    EtdImage *base_img;
    /* ... with the code side stream, their views (uint32_t -> [8]) */
    GHashTable *ctx_views;
    uint64_t code_pos;
    /*
     * Branch outcomes taken since the records of code_pos were applied
     * (negative while those pending then are taken), and how many the
     * next one waits for (0: none does).
     */
    int64_t code_taken;
    uint64_t code_wait;
    const EtdSink *sink;
    ETraceParams params;
    unsigned src;

    uint64_t pc;            /* last retired instruction reported */
    EtdBlock *blk;          /* the block holding pc ... */
    unsigned idx;           /* ... as its instruction idx */
    uint64_t address;       /* last address a packet carried */
    uint64_t branch_map;    /* bit 0 is the oldest; 1 = not taken */
    unsigned branches;
    uint8_t privilege;
    uint8_t ioptions;
    /* The jump target cache, as the encoder's. */
    EtdJtc jtc;
    /*
     * Since the last synchronisation the flow went through code no image
     * holds, where the encoder's cache changed as the decoder's did not:
     * the entries the decoder had are no longer trusted.
     */
    bool jtc_stale;
    /*
     * The branch predictor, as the encoder's: on from one
     * synchronisation to the next as the last support packet said;
     * branches to take as it predicts (format 0.0), then one it failed
     * (where a format 0.0 without an address stops); untrusted after code
     * no image holds.
     */
    EtdBpred bp;
    uint64_t pbc;
    bool bp_fail;
    bool stop_at_fail;
    bool bp_on;
    bool bp_stale;
    /*
     * Sequentially inferable jumps: on from one synchronisation to the
     * next as the last support packet said; the register the instruction
     * retired just before pc loaded with a constant, when it is in the
     * block before pc's, and the value.
     */
    bool sij_on;
    uint8_t seq_rd;
    uint64_t seq_value;
    /*
     * Implicit return: on from one synchronisation to the next as the
     * last support packet said; the return stack, as the encoder's;
     * untrusted after code no image holds.
     */
    bool ir_on;
    bool ir_stale;
    EtdRetStack rs;
    /*
     * Protocol 2.1: returns popped since the last branch or since
     * following the packet began (irets); the return taken as the one a
     * packet reports was predicted, its target is not cached.
     */
    unsigned irets;
    bool ir_keep_cache;
    bool start_of_trace;
    bool stop_at_last_branch;
    bool inferred_address;
    bool in_unknown;        /* pc is in code no image holds */
    /*
     * The timestamp of a format 1 or 2 packet that stopped at a first
     * pass through its address: reported when the next packet says
     * whether that was the instruction it reports.
     */
    bool time_pending;
    uint64_t pending_time;
    /* The last way into code no image holds: from (or ETD_NO_PC), to. */
    uint64_t left_from, left_to;

    /* Statistics. */
    bool synced;            /* a synchronisation packet was decoded */
    /*
     * A format 3.1 with thaddr = 0 came last: nothing retired since,
     * the next synchronisation reports the handler with no path to it.
     */
    bool trap_only;
    uint64_t insns;
    uint64_t packets[7];    /* F0, F1, F2, F3.0, F3.1, F3.3, F3.2 */
    uint64_t traps;
    uint64_t errors;
    uint64_t left;          /* times the flow left the images */

    /*
     * Data trace: the layouts of the source's te_data packets (noaddr,
     * nodata and, in 2.1, mmacas as its last support packet said), the
     * compression history; accesses read, by dtype; their bytes.
     */
    ETraceDataParams dparams;
    ETraceDataHistory dhist;
    /*
     * Split signalling: per lrid, the request awaiting its data phase
     * and its size (0xff: none).
     */
    ETraceDataAccess dreq[1 << ETRACE_DATA_LRID_MAX_BITS];
    uint8_t dreq_size[1 << ETRACE_DATA_LRID_MAX_BITS];
    uint64_t accesses[16];
    uint64_t data_bytes;
    uint64_t data_losses;   /* support packets with dloss */
} EtdDecoder;

void etd_decoder_init(EtdDecoder *d, EtdImage *img, const EtdSink *sink,
                      const ETraceParams *p, unsigned src);
/* Decode with the code side stream's records of the source. */
void etd_decoder_set_code(EtdDecoder *d, EtdCodeSrc *cs);
/*
 * Decode the instructions of a context that @ctx_imgs holds (uint32_t ->
 * EtdImage) with its image, those of the others with the decoder's.
 */
void etd_decoder_set_contexts(EtdDecoder *d, GHashTable *ctx_imgs);
/* What etd_decoder_init() and etd_decoder_set_code() allocated. */
void etd_decoder_free(EtdDecoder *d);
/* The image the decoder reads code of privilege @priv from. */
EtdImage *etd_decoder_image(EtdDecoder *d, unsigned priv);

/**
 * etd_decoder_packet: take one te_inst packet
 * @d: decoder
 * @t: the packet
 * @timed: @t->time is the packet's timestamp
 * @errp: what could not be followed (domain ETD_ERROR)
 *
 * On an error the decoder waits for the next synchronisation packet.
 */
bool etd_decoder_packet(EtdDecoder *d, const ETraceTeInst *t, bool timed,
                        GError **errp);

/**
 * etd_data_te_inst: what a te_inst packet means to data trace
 * @d: decoder
 * @t: the packet
 *
 * A format 3 packet ends the compression history; a support packet says
 * the options of the te_data packets after it, and whether some were
 * lost.
 */
void etd_data_te_inst(EtdDecoder *d, const ETraceTeInst *t);

/**
 * etd_data_packet: take one te_data packet
 * @d: decoder
 * @payload: its payload after the type field; bits past the end repeat
 *           the last one
 * @len: bytes of @payload
 * @timed: @time is the packet's timestamp
 * @errp: what could not be read (ETD_ERR_BAD_DATA, ETD_ERR_DATA_HISTORY)
 */
bool etd_data_packet(EtdDecoder *d, const uint8_t *payload, unsigned len,
                     bool timed, uint64_t time, GError **errp);

/* The name of an access type ("load", "failed-sc", ...). */
const char *etd_dtype_name(unsigned dtype);

/*
 * Accesses tied to their instructions.  QEMU's encoder sends the accesses
 * of a block before the te_inst packets that report its instructions
 * (docs/specs/riscv-trace.rst, "Data trace packets"): in order, each
 * instruction that makes accesses takes the next ones it makes.  Either
 * may come first: instructions wait for their accesses, accesses for
 * their instruction.
 */
typedef struct EtdTieAccess {
    ETraceDataAccess a;
    unsigned has;
} EtdTieAccess;

typedef struct EtdTieInsn {
    uint64_t pc;
    unsigned left;          /* ETD_DATA_VECTOR: not known */
    bool mma;
    uint8_t dir, size;      /* EtdInsn.data_dir, data_size */
} EtdTieInsn;

/* @pc is ETD_NO_PC for an access no instruction took. */
typedef void EtdTieFn(void *opaque, unsigned src, uint64_t pc,
                      const ETraceDataAccess *a, unsigned has);

typedef struct EtdTie {
    EtdImage *img;          /* what instructions access, from the code */
    bool mmacas;            /* the stream marks multi-memory accesses */
    bool blind;             /* no access is tied until the flow restarts */
    GArray *accesses;       /* EtdTieAccess, from @a_head on */
    GArray *insns;          /* EtdTieInsn, from @i_head on */
    unsigned a_head, i_head;
    EtdTieFn *out;
    void *opaque;
    unsigned src;
    uint64_t tied;
    uint64_t untied;        /* accesses no instruction took */
    uint64_t missing;       /* accesses instructions did not get */
} EtdTie;

void etd_tie_init(EtdTie *t, EtdImage *img, bool mmacas, unsigned src,
                  EtdTieFn *out, void *opaque);
void etd_tie_free(EtdTie *t);
/* An access read from the stream. */
void etd_tie_access(EtdTie *t, const ETraceDataAccess *a, unsigned has);
/* Instruction @insn at @pc retired, making its accesses. */
void etd_tie_insn(EtdTie *t, uint64_t pc, const EtdInsn *insn);
/* A gap: what waits is not tied (accesses go out with ETD_NO_PC). */
void etd_tie_gap(EtdTie *t);
/*
 * The flow starts again: instructions waiting get no access, accesses
 * waiting are not tied, but the last @keep.
 */
void etd_tie_align(EtdTie *t, unsigned keep);
/* Instruction @pc retired: it takes the accesses its code makes. */
void etd_tie_retired(EtdTie *t, uint64_t pc);
/* The same for @n instructions of @b from instruction @from on. */
void etd_tie_run(EtdTie *t, const EtdBlock *b, unsigned from, unsigned n);
/*
 * EtdSink.data_align: the flow starts again at @pc, whose own accesses
 * are kept when @own.
 */
void etd_tie_restart(EtdTie *t, uint64_t pc, bool own);

#define ETD_MAX_SOURCES     (1u << 12)

/* The payload's type field, when a stream has one (--data). */
#define ETD_TYPE_INST       0
#define ETD_TYPE_DATA       1

/* A stream of packets from one or more sources (srcIDs). */
typedef struct EtdStream {
    EtdImage *img;
    EtdCode *code;              /* the code side stream, or NULL */
    /* the images of contexts of their own (etd_decoder_set_contexts()) */
    GHashTable *ctx_imgs;
    const EtdSink *sink;
    ETraceParams params;
    /* te_data packets: the layouts before any support packet */
    ETraceDataParams dparams;
    unsigned srcid_bits;
    unsigned timestamp_bytes;   /* T: of a packet with extend = 1 */
    /* width of the payload's type field: 1 with data trace */
    unsigned type_bits;
    int only_src;               /* -1: every source */
    /*
     * A framing or decoding error at byte @offset of the stream, of
     * source @src (-1: of none).
     */
    void (*error)(void *opaque, uint64_t offset, int src, EtdError code,
                  const char *msg);
    void *opaque;
    EtdDecoder *dec[ETD_MAX_SOURCES];

    uint64_t offset;            /* of the next byte of the stream */
    uint64_t bytes;             /* in packets, headers included */
    uint64_t data_bytes;        /* ... of them in te_data packets */
    uint64_t nulls;
    uint64_t errors;
    uint64_t skipped;           /* bytes passed over to resynchronise */
    bool aligned;
    unsigned zeros;             /* null.idle bytes in a row */
} EtdStream;

/*
 * @timestamp_bytes: T, the width of the timestamp field (the stream's
 * synchronisation sequences have 31 + T + S null.idle bytes);
 * @join: the stream starts mid-way: skip to the first sync sequence.
 */
void etd_stream_init(EtdStream *m, EtdImage *img, const EtdSink *sink,
                     const ETraceParams *p, unsigned srcid_bits,
                     unsigned timestamp_bytes, bool join);

/* Take what can be of @buf; returns the bytes used (keep the rest). */
size_t etd_stream_feed(EtdStream *m, const uint8_t *buf, size_t len);

/* The stream ended with @left bytes not used. */
void etd_stream_finish(EtdStream *m, size_t left);

/* The decoder of a source, made on first use. */
EtdDecoder *etd_stream_decoder(EtdStream *m, unsigned src);

void etd_stream_free(EtdStream *m);

#endif
