#include "device/kernels/isa.h"

#include <cpuid.h>

#include <cstdint>
#include <string>

#include "base/error.h"
#include "base/settings.h"

namespace trnccl::device::kernels {
namespace {

struct CpuFeatures {
  bool avx2 = false;    // with FMA, F16C and the OS saving YMM state
  bool avx512 = false;  // F, BW, DQ, VL, and the OS saving ZMM and mask state
  bool avx512bf16 = false;
  bool avx512vbmi = false;  // avx512bf16 and VBMI (byte permutes)
};

bool bit(uint32_t word, int index) { return ((word >> index) & 1u) != 0; }

uint64_t xgetbv0() {
  uint32_t eax = 0, edx = 0;
  __asm__("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}

CpuFeatures detectCpuFeatures() {
  CpuFeatures features;
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return features;
  const bool fma = bit(ecx, 12), osxsave = bit(ecx, 27), avx = bit(ecx, 28), f16c = bit(ecx, 29);
  if (!osxsave || !avx) return features;
  const uint64_t xcr0 = xgetbv0();
  constexpr uint64_t kYmmState = 0x6, kZmmState = 0xE6;  // XMM|YMM; + opmask, ZMM_Hi256, Hi16_ZMM
  if ((xcr0 & kYmmState) != kYmmState) return features;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return features;
  features.avx2 = bit(ebx, 5) && fma && f16c;
  features.avx512 =
      features.avx2 && (xcr0 & kZmmState) == kZmmState && bit(ebx, 16) && bit(ebx, 17) && bit(ebx, 30) && bit(ebx, 31);
  const bool vbmi = bit(ecx, 1);
  if (features.avx512 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) features.avx512bf16 = bit(eax, 5);
  features.avx512vbmi = features.avx512bf16 && vbmi;
  return features;
}

Isa bestSupportedIsa() {
  Isa best = Isa::Scalar;
  for (Isa isa : kAllIsas)
    if (isaSupported(isa)) best = isa;
  return best;
}

}  // namespace

const char* isaName(Isa isa) {
  switch (isa) {
    case Isa::Scalar:
      return "scalar";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx512:
      return "avx512";
    case Isa::Avx512Bf16:
      return "avx512bf16";
    case Isa::Avx512Vbmi:
      return "avx512vbmi";
  }
  return "unknown";
}

bool isaSupported(Isa isa) {
  static const CpuFeatures features = detectCpuFeatures();
  switch (isa) {
    case Isa::Scalar:
      return true;
    case Isa::Avx2:
      return features.avx2;
    case Isa::Avx512:
      return features.avx512;
    case Isa::Avx512Bf16:
      return features.avx512bf16;
    case Isa::Avx512Vbmi:
      return features.avx512vbmi;
  }
  return false;
}

TRNCCL_SETTING(kIsa, TRNCCL_KERNEL_ISA,
               settings::choice("scalar, avx2, avx512, avx512bf16, avx512vbmi", "best available"),
               "force a kernel path (reductions under 64 bytes take the scalar one, whose bits every path gives)");

const settings::Setting& isaSetting() { return kIsa; }

Isa chooseIsa() {
  const Isa best = bestSupportedIsa();
  const std::string wanted = settings::readChoice(kIsa, isaName(best));
  Isa isa = best;
  for (Isa candidate : kAllIsas)
    if (wanted == isaName(candidate)) isa = candidate;
  if (!isaSupported(isa)) {
    throwError(trncclInvalidArgument, std::string("environment variable ") + kIsa.name + "='" + wanted +
                                          "' names an instruction set this CPU cannot run "
                                          "(the best it runs is " +
                                          isaName(best) + ")");
  }
  return isa;
}

// Chosen on first use; a bad TRNCCL_KERNEL_ISA throws from every call.
Isa selectedIsa() {
  static const Isa isa = chooseIsa();
  return isa;
}

}  // namespace trnccl::device::kernels
