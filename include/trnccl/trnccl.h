/* trnccl: collective communication for (emulated) AWS Trainium clusters.
 *
 * The API mirrors NCCL's names and numbering with the `trncclX` prefix, so code
 * written for NCCL ports by renaming. Every entry point validates its arguments
 * and returns a result code; it never throws and never aborts the process.
 * trncclGetLastError() says what was wrong, naming the argument. */
#ifndef TRNCCL_H_
#define TRNCCL_H_

#include <stddef.h>
#include <stdint.h>

#define TRNCCL_MAJOR 0
#define TRNCCL_MINOR 1
#define TRNCCL_PATCH 0
#define TRNCCL_VERSION_CODE(X, Y, Z) ((X)*10000 + (Y)*100 + (Z))
#define TRNCCL_VERSION TRNCCL_VERSION_CODE(TRNCCL_MAJOR, TRNCCL_MINOR, TRNCCL_PATCH)

#if defined(__GNUC__)
#define TRNCCL_API __attribute__((visibility("default")))
#else
#define TRNCCL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trncclComm* trncclComm_t;
typedef struct trncclStream* trncclStream_t; /* NULL = blocking call */

#define TRNCCL_UNIQUE_ID_BYTES 128
typedef struct {
  char internal[TRNCCL_UNIQUE_ID_BYTES];
} trncclUniqueId;

typedef enum {
  trncclSuccess = 0,
  trncclUnhandledDeviceError = 1,
  trncclSystemError = 2,
  trncclInternalError = 3,
  trncclInvalidArgument = 4,
  trncclInvalidUsage = 5,
  trncclRemoteError = 6,
  trncclInProgress = 7,
  trncclTimeout = 8,
  trncclNumResults = 9
} trncclResult_t;

typedef enum {
  trncclInt8 = 0,
  trncclChar = 0,
  trncclUint8 = 1,
  trncclInt32 = 2,
  trncclInt = 2,
  trncclUint32 = 3,
  trncclInt64 = 4,
  trncclUint64 = 5,
  trncclFloat16 = 6,
  trncclHalf = 6,
  trncclFloat32 = 7,
  trncclFloat = 7,
  trncclFloat64 = 8,
  trncclDouble = 8,
  trncclBfloat16 = 9,
  trncclFloat8e4m3 = 10,
  trncclFloat8e5m2 = 11,
  trncclNumTypes = 12
} trncclDataType_t;

typedef enum {
  trncclSum = 0,
  trncclProd = 1,
  trncclMax = 2,
  trncclMin = 3,
  trncclAvg = 4,
  trncclNumOps = 5, /* trncclRedOpCreatePreMulSum's operators are numbered from here */
  trncclMaxRedOp = 0x7fffffff
} trncclRedOp_t;

/* ---- Version, errors, simulated device memory -------------------------- */

TRNCCL_API trncclResult_t trncclGetVersion(int* version);
TRNCCL_API const char* trncclGetErrorString(trncclResult_t result);
/* Human-readable cause of the last failure of a call on `comm` (or, with
 * comm == NULL, of the last failing call made by this thread). */
TRNCCL_API const char* trncclGetLastError(trncclComm_t comm);

/* Simulated device (HBM) memory: page-aligned, and mappable by other processes
 * on the same host, so the shared-memory NeuronLink model can write straight
 * into a peer's device memory. */
TRNCCL_API trncclResult_t trncclMemAlloc(void** ptr, size_t size);
TRNCCL_API trncclResult_t trncclMemFree(void* ptr);

/* User-buffer registration (NCCL's ncclCommRegister): the caller promises
 * that [buff, buff + size) stays allocated until trncclCommDeregister.
 * Optional: unregistered buffers work in every call, and no transport is
 * faster with it yet (README). *handle names the registration for
 * trncclCommDeregister. */
TRNCCL_API trncclResult_t trncclCommRegister(const trncclComm_t comm, void* buff, size_t size, void** handle);
TRNCCL_API trncclResult_t trncclCommDeregister(const trncclComm_t comm, void* handle);

/* ---- Communicators ------------------------------------------------------- */

/* Configuration of a communicator. Initialise with TRNCCL_CONFIG_INITIALIZER;
 * a field left at its initial value takes the environment variable named
 * beside it (or the default); a field set here wins over the environment. */
typedef struct {
  size_t size;             /* sizeof(trncclConfig_t), set by the initializer */
  unsigned int magic;      /* set by the initializer */
  unsigned int version;    /* TRNCCL_VERSION, set by the initializer */
  int blocking;            /* 1 (default): calls block; 0: may return trncclInProgress */
  int timeoutMs;           /* TRNCCL_TIMEOUT_MS; default 300000 (5 minutes) */
  const char* topology;    /* TRNCCL_TOPO: a name like "trn1.32xlarge" or a file path */
  const char* transport;   /* TRNCCL_TRANSPORT: "auto", "shm", "ofi", "tcp" */
  const char* algorithm;   /* TRNCCL_ALGO: "auto", "ring", ... (NCCL syntax) */
  int stochasticRounding;  /* TRNCCL_STOCHASTIC_ROUNDING: 0 (RNE) or 1 */
  unsigned long long seed; /* TRNCCL_SEED: stochastic-rounding seed */
  const char* commName;    /* shown in logs */
  int deterministic;       /* TRNCCL_DETERMINISTIC: 0 or 1 (README "Deterministic mode") */
} trncclConfig_t;

#define TRNCCL_CONFIG_UNDEF_INT (-2147483647 - 1)
#define TRNCCL_CONFIG_MAGIC 0x7472636eu
#define TRNCCL_CONFIG_INITIALIZER                                                                                  \
  {                                                                                                                \
    sizeof(trncclConfig_t), TRNCCL_CONFIG_MAGIC, TRNCCL_VERSION, TRNCCL_CONFIG_UNDEF_INT, TRNCCL_CONFIG_UNDEF_INT, \
        NULL, NULL, NULL, TRNCCL_CONFIG_UNDEF_INT, 0ULL, NULL, TRNCCL_CONFIG_UNDEF_INT                             \
  }

#define TRNCCL_SPLIT_NOCOLOR (-1)

/* Encryption of the sockets trnccl owns (the bootstrap's and the tcp
 * transport's; not shared memory, not libfabric): TLS 1.3 with this
 * pre-shared key, which every process of a job must set, the same, before the
 * unique id is made (or name a file holding it in hex with
 * TRNCCL_ENCRYPTION_KEY_FILE). keyBytes 16 to 64; key NULL with keyBytes 0
 * turns it off (the default). The key is copied; later communicators use it. */
TRNCCL_API trncclResult_t trncclSetEncryption(const void* key, size_t keyBytes);
TRNCCL_API trncclResult_t trncclGetUniqueId(trncclUniqueId* id);
TRNCCL_API trncclResult_t trncclCommInitRank(trncclComm_t* comm, int nranks, trncclUniqueId id, int rank);
TRNCCL_API trncclResult_t trncclCommInitRankConfig(trncclComm_t* comm, int nranks, trncclUniqueId id, int rank,
                                                   trncclConfig_t* config);
/* All ranks as threads of this process: comms[i] is rank i. `unused` is
 * accepted for NCCL compatibility (NCCL's device list) and must be NULL or
 * hold nranks entries. */
TRNCCL_API trncclResult_t trncclCommInitAll(trncclComm_t* comms, int nranks, const int* unused);
TRNCCL_API trncclResult_t trncclCommSplit(trncclComm_t comm, int color, int key, trncclComm_t* newcomm,
                                          trncclConfig_t* config);
TRNCCL_API trncclResult_t trncclCommFinalize(trncclComm_t comm);
TRNCCL_API trncclResult_t trncclCommDestroy(trncclComm_t comm);
TRNCCL_API trncclResult_t trncclCommAbort(trncclComm_t comm);
TRNCCL_API trncclResult_t trncclCommGetAsyncError(trncclComm_t comm, trncclResult_t* asyncError);
TRNCCL_API trncclResult_t trncclCommCount(const trncclComm_t comm, int* count);

/* Going on without lost ranks (NCCL 2.27's revoke and shrink). Revoke: every
 * running and queued operation of `comm` ends with trncclRemoteError (or the
 * error it had) on this rank, without the peers' help, and the call returns
 * once none is left; `comm` stays valid for trncclCommShrink and
 * trncclCommDestroy, and refuses new operations. Shrink: the ranks not in
 * excludeRanksList (which do not call it) make `newcomm` of themselves, in
 * their order, without a new unique id; with TRNCCL_SHRINK_ABORT (or on a
 * communicator that failed) outstanding work is revoked first, otherwise it
 * finishes first. The survivors must exclude the same ranks; a survivor that
 * is dead but not excluded fails the shrink, naming it, within the timeout. */
#define TRNCCL_REVOKE_DEFAULT 0x00
#define TRNCCL_SHRINK_DEFAULT 0x00
#define TRNCCL_SHRINK_ABORT 0x01
TRNCCL_API trncclResult_t trncclCommRevoke(trncclComm_t comm, int revokeFlags);
TRNCCL_API trncclResult_t trncclCommShrink(trncclComm_t comm, int* excludeRanksList, int excludeRanksCount,
                                           trncclComm_t* newcomm, trncclConfig_t* config, int shrinkFlags);

/* Growing a live job (NCCL 2.28's grow). Rank 0 of `comm` makes the grow id
 * with trncclCommGetUniqueId and hands it to the joining ranks (by any means);
 * then every rank of `comm` calls trncclCommGrow(comm, nRanks, NULL, -1, ...)
 * and keeps its rank, and each joining rank calls trncclCommGrow(NULL,
 * nRanks, &id, rank, ...) with a rank from comm's size to nRanks - 1.
 * `newcomm` has nRanks ranks; `comm` stays as it was. */
TRNCCL_API trncclResult_t trncclCommGetUniqueId(trncclComm_t comm, trncclUniqueId* uniqueId);

/* Between phases of a job (NCCL 2.29's suspend): trncclCommSuspend waits for
 * comm's queued work, then refuses new operations until trncclCommResume;
 * with TRNCCL_SUSPEND_MEM it also frees the host memory comm holds for
 * operations (its staging buffers, scratch and compiled schedules), which
 * comes back on first use after the resume (trncclCommMemStats shows both).
 * The transports' buffers (shared-memory FIFOs, network buffers) stay. */
#define TRNCCL_SUSPEND_MEM 0x01
TRNCCL_API trncclResult_t trncclCommSuspend(trncclComm_t comm, int flags);
TRNCCL_API trncclResult_t trncclCommResume(trncclComm_t comm);
TRNCCL_API trncclResult_t trncclCommGrow(trncclComm_t comm, int nRanks, const trncclUniqueId* uniqueId, int rank,
                                         trncclComm_t* newcomm, trncclConfig_t* config);
TRNCCL_API trncclResult_t trncclCommUserRank(const trncclComm_t comm, int* rank);

/* ---- Collectives and point-to-point --------------------------------------- */

TRNCCL_API trncclResult_t trncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype,
                                          trncclRedOp_t op, trncclComm_t comm, trncclStream_t stream);
TRNCCL_API trncclResult_t trncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                          trncclDataType_t datatype, trncclComm_t comm, trncclStream_t stream);
TRNCCL_API trncclResult_t trncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                              trncclDataType_t datatype, trncclRedOp_t op, trncclComm_t comm,
                                              trncclStream_t stream);
TRNCCL_API trncclResult_t trncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype,
                                          int root, trncclComm_t comm, trncclStream_t stream);
TRNCCL_API trncclResult_t trncclReduce(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype,
                                       trncclRedOp_t op, int root, trncclComm_t comm, trncclStream_t stream);
TRNCCL_API trncclResult_t trncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype,
                                         trncclComm_t comm, trncclStream_t stream);
/* Gather (NCCL 2.28): every rank's `count` elements to the root's recvbuff,
 * rank q's at element count * q; in place when the root's sendbuff is
 * recvbuff + count * root. recvbuff is read on the root only. */
TRNCCL_API trncclResult_t trncclGather(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype,
                                       int root, trncclComm_t comm, trncclStream_t stream);
/* Scatter (NCCL 2.28): the root's block q (count elements at count * q) to
 * rank q's recvbuff; in place when the root's recvbuff is sendbuff + count *
 * root. sendbuff is read on the root only. */
TRNCCL_API trncclResult_t trncclScatter(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype,
                                        int root, trncclComm_t comm, trncclStream_t stream);
/* The variable-size collectives (Neuron's AllToAllV, AllGatherV,
 * ReduceScatterV). Counts and displacements are in elements, one per rank.
 * All-to-all-v: sendcounts[q] elements at sdispls[q] go to rank q, which
 * receives them as its recvcounts[this rank] at rdispls[this rank]; send and
 * receive buffers must not overlap. */
TRNCCL_API trncclResult_t trncclAlltoAllv(const void* sendbuff, const size_t sendcounts[], const size_t sdispls[],
                                          void* recvbuff, const size_t recvcounts[], const size_t rdispls[],
                                          trncclDataType_t datatype, trncclComm_t comm, trncclStream_t stream);
/* All-gather-v: rank q's sendcount (= recvcounts[q]) elements land at
 * displs[q] of every rank's recvbuff; recvcounts and displs are the same on
 * every rank; in place when sendbuff is recvbuff + displs[rank]. */
TRNCCL_API trncclResult_t trncclAllGatherV(const void* sendbuff, size_t sendcount, void* recvbuff,
                                           const size_t recvcounts[], const size_t displs[], trncclDataType_t datatype,
                                           trncclComm_t comm, trncclStream_t stream);
/* Reduce-scatter-v: block q (sendcounts[q] elements at displs[q]) of every
 * rank's sendbuff, reduced, lands in rank q's recvbuff (recvcount =
 * sendcounts[q]); sendcounts and displs are the same on every rank; in place
 * when recvbuff is sendbuff + displs[rank]. */
TRNCCL_API trncclResult_t trncclReduceScatterV(const void* sendbuff, const size_t sendcounts[], const size_t displs[],
                                               void* recvbuff, size_t recvcount, trncclDataType_t datatype,
                                               trncclRedOp_t op, trncclComm_t comm, trncclStream_t stream);
/* Permute (Neuron's explicit source-to-target pairs): send `count` elements
 * to sendPeer and receive `count` from recvPeer, either -1 for none; a rank
 * that sends to itself receives from itself. In place when sendbuff ==
 * recvbuff. */
TRNCCL_API trncclResult_t trncclPermute(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype,
                                        int sendPeer, int recvPeer, trncclComm_t comm, trncclStream_t stream);

/* PreMulSum (NCCL's ncclRedOpCreatePreMulSum): an operator of `comm` for
 * `datatype` that multiplies each rank's input by `scalar` (one element of
 * `datatype`) before the sum, usable with that datatype in trncclAllReduce,
 * trncclReduce, trncclReduceScatter and trncclReduceScatterV (PyTorch's FSDP
 * averages gradients this way). Each rank passes its own scalar. The product
 * and the sum are as trncclSum's: in FP32 for fp16, bf16 and fp8 (one
 * rounding per local reduction), wrapping for integers.
 * trncclScalarHostImmediate: the value is copied now. trncclScalarDevice:
 * `scalar` points at the value, read each time a collective using the
 * operator runs; in trnccl "device" memory is host memory of the emulated
 * device (trncclMemAlloc's, or any host memory), so it must stay valid, and
 * not change while such a collective runs. The handle is numbered from
 * trncclNumOps, per communicator (a destroyed one's number is reused), and
 * may be destroyed once the last call that uses it has returned. */
typedef enum { trncclScalarDevice = 0, trncclScalarHostImmediate = 1 } trncclScalarResidence_t;
TRNCCL_API trncclResult_t trncclRedOpCreatePreMulSum(trncclRedOp_t* op, void* scalar, trncclDataType_t datatype,
                                                     trncclScalarResidence_t residence, trncclComm_t comm);
TRNCCL_API trncclResult_t trncclRedOpDestroy(trncclRedOp_t op, trncclComm_t comm);

TRNCCL_API trncclResult_t trncclSend(const void* sendbuff, size_t count, trncclDataType_t datatype, int peer,
                                     trncclComm_t comm, trncclStream_t stream);
TRNCCL_API trncclResult_t trncclRecv(void* recvbuff, size_t count, trncclDataType_t datatype, int peer,
                                     trncclComm_t comm, trncclStream_t stream);
/* trnccl extension, for receives from any source (MPI_Iprobe with
 * MPI_ANY_SOURCE): sets *source to a rank whose next trncclSend to this rank
 * has arrived, or begun to, and is not yet received here; -1 when none has.
 * It does not wait for messages, but it runs after every operation issued on
 * `comm` before it, whatever its stream. Receive the message with
 * trncclRecv(..., *source, comm, ...). Senders are reported round-robin, so
 * none is starved. Not within a group. */
TRNCCL_API trncclResult_t trncclProbe(int* source, trncclComm_t comm);
TRNCCL_API trncclResult_t trncclGroupStart(void);
TRNCCL_API trncclResult_t trncclGroupEnd(void);

/* Ends the group as trncclGroupEnd would, but runs none of its operations:
 * `estimatedTime` receives their predicted time in seconds, from the
 * machine model the tuner and trnccl-sim use (NCCL's ncclGroupSimulateEnd).
 * A communicator's operations in the group take one after another, several
 * communicators' run side by side (the longest counts). As with
 * trncclCommGetAlgorithm, the time is as this run would measure it
 * (multiplied by the emulation scale when TRNCCL_EMULATE_LINKS is on).
 * The simulated operations are forgotten: the next calls are numbered and
 * matched as if they had never been made, so one rank may simulate alone.
 * Initialise simInfo with TRNCCL_SIM_INFO_INITIALIZER. */
typedef struct {
  size_t size;        /* sizeof(trncclSimInfo_t), set by the initializer */
  unsigned int magic; /* set by the initializer */
  unsigned int version;
  float estimatedTime; /* out: seconds (-1 until a simulation fills it) */
} trncclSimInfo_t;
#define TRNCCL_SIM_INFO_MAGIC 0x74726e73u
#define TRNCCL_SIM_INFO_INITIALIZER \
  { sizeof(trncclSimInfo_t), TRNCCL_SIM_INFO_MAGIC, TRNCCL_VERSION, -1.0f }
TRNCCL_API trncclResult_t trncclGroupSimulateEnd(trncclSimInfo_t* simInfo);

/* ---- Streams: ordered queues of operations --------------------------------- */

/* trnccl extension: which algorithm `comm` runs for a collective of `count`
 * elements of `datatype` (collective: "allreduce", "allgather",
 * "reducescatter", "broadcast", "reduce", "alltoall", "gather" or "scatter"; count as the
 * collective's own call takes it), and the tuner's predicted time for it in
 * microseconds, as this run would measure it (multiplied by the emulation
 * scale when TRNCCL_EMULATE_LINKS is on). `algorithm` receives a
 * NUL-terminated name of at most TRNCCL_ALGO_NAME_MAX bytes; `predictedUs`
 * may be NULL. */
#define TRNCCL_ALGO_NAME_MAX 64
TRNCCL_API trncclResult_t trncclCommGetAlgorithm(const trncclComm_t comm, const char* collective, size_t count,
                                                 trncclDataType_t datatype, char* algorithm, double* predictedUs);

/* trnccl extension: what carries `comm`'s bytes, e.g. "shm" within an
 * instance, "shm + ofi (tcp;ofi_rxm, 1 rail)" for a job across instances,
 * "none" for a communicator of one rank. `transport` receives a
 * NUL-terminated text of at most TRNCCL_TRANSPORT_NAME_MAX bytes. */
#define TRNCCL_TRANSPORT_NAME_MAX 128
TRNCCL_API trncclResult_t trncclCommGetTransport(const trncclComm_t comm, char* transport);

/* trnccl extension: the memory `comm` holds on this rank, once its queued
 * operations are done (the call waits for them). Buffers are allocated on
 * first use: a peer this rank never sends to costs it no FIFO, a collective
 * that stages nothing costs no staging buffer. docs/memory.md has the
 * formulas per peer, per channel and per transport. */
typedef struct {
  unsigned long long hostBytes;       /* heap: staging buffers, scratch, the transports' own buffers */
  unsigned long long sharedBytes;     /* /dev/shm committed by this rank: its segment's header and
                                         tables, and the FIFOs it writes to in its peers' segments */
  unsigned long long registeredBytes; /* memory registered with a NIC (libfabric FI_MR_LOCAL) */
  int peersWithBuffers;               /* peers whose per-peer buffers exist */
} trncclMemStats_t;
TRNCCL_API trncclResult_t trncclCommMemStats(const trncclComm_t comm, trncclMemStats_t* stats);

TRNCCL_API trncclResult_t trncclStreamCreate(trncclStream_t* stream);
TRNCCL_API trncclResult_t trncclStreamSynchronize(trncclStream_t stream);
/* trncclSuccess when everything queued has finished, trncclInProgress if not. */
TRNCCL_API trncclResult_t trncclStreamQuery(trncclStream_t stream);
TRNCCL_API trncclResult_t trncclStreamDestroy(trncclStream_t stream);

/* ---- Per-call configuration (NCCL 2.31's ncclCollConfig_t) ---------------- */

/* What one collective call asks for, overriding its communicator's choice
 * for that call only. Initialise with TRNCCL_COLLCONFIG_INITIALIZER; a field
 * left at its initial value keeps the communicator's choice. A choice that is
 * unknown, or that cannot run the call, is trncclInvalidArgument naming the
 * field (config->algorithm, config->chunkSize, config->deterministic). */
typedef struct {
  size_t size;           /* sizeof(trncclCollConfig_t), set by the initializer */
  unsigned int magic;    /* set by the initializer */
  unsigned int version;  /* TRNCCL_VERSION, set by the initializer */
  const char* algorithm; /* NULL or "auto": the tuner's (and TRNCCL_ALGO's) choice; else one
                            algorithm by name ("ring", "torus2d", "rdh", "mesh", ...), whatever
                            TRNCCL_ALGO allows */
  size_t chunkSize;      /* bytes one step of the schedule carries at most (pipelined
                            algorithms split their blocks into such steps); 0: the default,
                            TRNCCL_WINDOW x TRNCCL_SLICE_BYTES, which is also the largest */
  int deterministic;     /* TRNCCL_CONFIG_UNDEF_INT: the communicator's; 0 or 1 */
} trncclCollConfig_t;
#define TRNCCL_COLLCONFIG_MAGIC 0x7472636cu
#define TRNCCL_COLLCONFIG_INITIALIZER \
  { sizeof(trncclCollConfig_t), TRNCCL_COLLCONFIG_MAGIC, TRNCCL_VERSION, NULL, 0, TRNCCL_CONFIG_UNDEF_INT }
#define TRNCCL_COLL_CONFIG_INITIALIZER TRNCCL_COLLCONFIG_INITIALIZER

/* Each collective with a per-call configuration, named as NCCL 2.31 names
 * them (ncclAllReduceConfig, ...): the plain call's arguments, then `config`
 * (NULL: the plain call). Within a group, each call keeps its own choice. */
TRNCCL_API trncclResult_t trncclAllReduceConfig(const void* sendbuff, void* recvbuff, size_t count,
                                                trncclDataType_t datatype, trncclRedOp_t op, trncclComm_t comm,
                                                trncclStream_t stream, const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclAllGatherConfig(const void* sendbuff, void* recvbuff, size_t sendcount,
                                                trncclDataType_t datatype, trncclComm_t comm, trncclStream_t stream,
                                                const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclReduceScatterConfig(const void* sendbuff, void* recvbuff, size_t recvcount,
                                                    trncclDataType_t datatype, trncclRedOp_t op, trncclComm_t comm,
                                                    trncclStream_t stream, const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclBroadcastConfig(const void* sendbuff, void* recvbuff, size_t count,
                                                trncclDataType_t datatype, int root, trncclComm_t comm,
                                                trncclStream_t stream, const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclReduceConfig(const void* sendbuff, void* recvbuff, size_t count,
                                             trncclDataType_t datatype, trncclRedOp_t op, int root, trncclComm_t comm,
                                             trncclStream_t stream, const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclAlltoAllConfig(const void* sendbuff, void* recvbuff, size_t count,
                                               trncclDataType_t datatype, trncclComm_t comm, trncclStream_t stream,
                                               const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclGatherConfig(const void* sendbuff, void* recvbuff, size_t count,
                                             trncclDataType_t datatype, int root, trncclComm_t comm,
                                             trncclStream_t stream, const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclScatterConfig(const void* sendbuff, void* recvbuff, size_t count,
                                              trncclDataType_t datatype, int root, trncclComm_t comm,
                                              trncclStream_t stream, const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclAlltoAllvConfig(const void* sendbuff, const size_t sendcounts[], const size_t sdispls[],
                                                void* recvbuff, const size_t recvcounts[], const size_t rdispls[],
                                                trncclDataType_t datatype, trncclComm_t comm, trncclStream_t stream,
                                                const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclAllGatherVConfig(const void* sendbuff, size_t sendcount, void* recvbuff,
                                                 const size_t recvcounts[], const size_t displs[],
                                                 trncclDataType_t datatype, trncclComm_t comm, trncclStream_t stream,
                                                 const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclReduceScatterVConfig(const void* sendbuff, const size_t sendcounts[],
                                                     const size_t displs[], void* recvbuff, size_t recvcount,
                                                     trncclDataType_t datatype, trncclRedOp_t op, trncclComm_t comm,
                                                     trncclStream_t stream, const trncclCollConfig_t* config);
TRNCCL_API trncclResult_t trncclPermuteConfig(const void* sendbuff, void* recvbuff, size_t count,
                                              trncclDataType_t datatype, int sendPeer, int recvPeer, trncclComm_t comm,
                                              trncclStream_t stream, const trncclCollConfig_t* config);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRNCCL_H_ */
