// The C++ side of the evotest pass plugin. It is deliberately small: everything that decides what
// to instrument and how lives in Rust (src/). This file does three things the LLVM-C API cannot:
//
//  1. Registration with the new pass manager. A PassInfoMixin module pass whose run() calls the
//     Rust entry point evotest_instrument_module(), registered at pipeline start so it runs before
//     SimplifyCFG/instcombine, at -O0 as well as -O2. The plugin entry point itself
//     (llvmGetPassPluginInfo) is defined in Rust, because a cdylib exports only Rust #[no_mangle]
//     symbols (see ../shared/LLVM22-NOTES.md); it calls evotest_plugin_info() below.
//
//  2. Debug-info accessors that LLVM-C lacks: the name, argument number, type and subprogram of a
//     DILocalVariable, the types of a DISubprogram, the C spelling / scalar class / size / members
//     of a DIType; and two IR queries (an argument's `sret`, a pointer's base and constant offset)
//     used to match IR arguments to source parameters when the ABI splits or indirects them (Rust).
//
//  3. Function cloning and entry dispatch for the coverage-only clones (src/lite.rs): LLVM-C has
//     no CloneFunction; and the clones' marks, with the pass at OptimizerLast that makes them
//     counts (EvotestLowerMarks).

#include "llvm-c/Core.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Argument.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstring>
#include <string>

using namespace llvm;

// The coverage-only mark (see EvotestLowerMarks); names::LITE_MARK on the Rust side.
static const char *const LITE_MARK = "__evotest_lite_mark";
// The metadata on the probe of a `br` or `select` site; names::LITE_BRANCH_MD on the Rust side.
static const char *const LITE_BRANCH_MD = "evotest.branch";

extern "C" bool evotest_instrument_module(LLVMModuleRef M);

namespace {

struct EvotestProbePass : PassInfoMixin<EvotestProbePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    bool Changed = evotest_instrument_module(wrap(&M));
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  // Run even for optnone functions (every function at -O0).
  static bool isRequired() { return true; }
};

// Add one to the byte at At, unless it is 255 (a saturating count of the lite map), at B.
void countByte(IRBuilder<> &B, Value *At) {
  Type *I8 = B.getInt8Ty();
  Value *C = B.CreateLoad(I8, At);
  B.CreateStore(B.CreateAdd(C, B.CreateZExt(B.CreateICmpNE(C, B.getInt8(255)), I8)), At);
}

// A new block named Name on the edge to successor K of Term (in function F): it branches to the
// successor, and one of the successor's phi entries from Term's block (one per edge) now comes
// from it. Returns its branch, before which a count goes.
Instruction *edgeBlock(Instruction *Term, unsigned K, const char *Name) {
  BasicBlock *BB = Term->getParent(), *Dest = Term->getSuccessor(K);
  BasicBlock *Edge = BasicBlock::Create(Term->getContext(), Name, BB->getParent(), Dest);
  Instruction *Br = BranchInst::Create(Dest, Edge);
  Term->setSuccessor(K, Edge);
  for (PHINode &Phi : Dest->phis()) {
    int Idx = Phi.getBasicBlockIndex(BB);
    if (Idx >= 0) Phi.setIncomingBlock(Idx, Edge);
  }
  return Br;
}

// After optimisation (OptimizerLast): each coverage-only mark `h = __evotest_lite_mark(lite, ob,
// holds)`, placed in the clones before optimisation (evotest_lite_marks below), becomes the count
// of the outcome taken in the lite map `*lite` (a saturating byte): outcome `ob` when `holds`,
// `ob + 1` when not; and `h` becomes `holds`. So the counters are placed where the optimiser has
// done its work, as SanitizerCoverage's are, and still count the outcomes of the source's branches.
//
// A mark that only a conditional `br` tests counts on the branch's two edges, at constant offsets
// (in the successor when the branch is its only predecessor, else in a block on the edge): a
// count at an address computed from the condition costs more, because the next load of the same
// byte must wait for the condition (sqlite3's clones: 66 µs per execution against 46 µs on edges).
// Other marks (a `select`'s, or one whose value the optimiser reused) count at `ob + !holds`.
struct EvotestLowerMarks : PassInfoMixin<EvotestLowerMarks> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    Function *Mark = M.getFunction(LITE_MARK);
    if (!Mark) return PreservedAnalyses::all();
    LLVMContext &Ctx = M.getContext();
    Type *I8 = Type::getInt8Ty(Ctx), *I64 = Type::getInt64Ty(Ctx);
    Type *Ptr = PointerType::get(Ctx, 0);
    SmallVector<CallInst *, 64> Calls;
    for (User *U : Mark->users())
      if (auto *CI = dyn_cast<CallInst>(U))
        if (CI->getCalledOperand() == Mark && CI->arg_size() == 3 && isa<ConstantInt>(CI->getArgOperand(1)))
          Calls.push_back(CI);
    // the map's address, loaded once per function at its entry: it is set when the module
    // registers, before any clone runs (a clone runs only in a coverage-only execution)
    DenseMap<std::pair<Function *, Value *>, Value *> Bases;
    for (CallInst *CI : Calls) {
      Value *Lite = CI->getArgOperand(0), *Holds = CI->getArgOperand(2);
      uint64_t Ob = cast<ConstantInt>(CI->getArgOperand(1))->getZExtValue();
      Function *F = CI->getFunction();
      Value *&Counts = Bases[{F, Lite}];
      if (!Counts) {
        IRBuilder<> E(&*F->getEntryBlock().getFirstInsertionPt());
        Counts = E.CreateLoad(Ptr, Lite, "evotest.lite.map");
      }
      auto *Br = CI->hasOneUse() ? dyn_cast<BranchInst>(*CI->user_begin()) : nullptr;
      if (Br && Br->isConditional() && Br->getCondition() == CI && Br->getSuccessor(0) != Br->getSuccessor(1)) {
        // successor 0 is taken when the mark, that is `holds`, is true: outcome `ob`
        for (unsigned K = 0; K < 2; ++K) {
          BasicBlock *Dest = Br->getSuccessor(K);
          Instruction *At = Dest->getSinglePredecessor() == Br->getParent() ? &*Dest->getFirstInsertionPt()
                                                                           : edgeBlock(Br, K, "evotest.lite.edge");
          IRBuilder<> B(At);
          countByte(B, B.CreateConstInBoundsGEP1_64(I8, Counts, Ob + K));
        }
      } else {
        IRBuilder<> B(CI);
        Value *O = B.CreateAdd(B.getInt64(Ob), B.CreateZExt(B.CreateNot(Holds), I64));
        countByte(B, B.CreateInBoundsGEP(I8, Counts, O));
      }
      CI->replaceAllUsesWith(Holds);
      CI->eraseFromParent();
    }
    if (Mark->use_empty()) Mark->eraseFromParent();
    return PreservedAnalyses::none();
  }
  static bool isRequired() { return true; }
};

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(EvotestProbePass()); });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) { MPM.addPass(EvotestLowerMarks()); });
  // For opt-22 -load-pass-plugin=... -passes=evotest (and evotest-lower-marks)
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "evotest") {
          MPM.addPass(EvotestProbePass());
          return true;
        }
        if (Name == "evotest-lower-marks") {
          MPM.addPass(EvotestLowerMarks());
          return true;
        }
        return false;
      });
}

// The name of a composite type as the source refers to it: qualified by its enclosing
// namespaces and classes for a C++ type (one with an ODR identifier, `_ZTS...`: `geo::Pt`), so
// that a tests.cpp that includes the source can name it; the plain name otherwise (C, Rust).
// Anonymous namespaces are left out (their members are visible in the including file).
// Name, prefixed with the names of the scopes from Sc outwards (namespaces, types), joined by
// "::"; unnamed scopes are left out.
std::string qualified(std::string Name, const DIScope *Sc) {
  for (int Depth = 0; Sc && Depth < 32; ++Depth) {
    if (isa<DIFile>(Sc) || isa<DICompileUnit>(Sc)) break;
    StringRef N = Sc->getName();
    if (!N.empty()) Name = N.str() + "::" + Name;
    Sc = Sc->getScope();
  }
  return Name;
}

std::string compositeName(const DICompositeType *C) {
  if (!C->getIdentifier().starts_with("_ZTS")) return C->getName().str();
  return qualified(C->getName().str(), C->getScope());
}

// Append the C spelling of T to Out.
void spell(const DIType *T, std::string &Out, int Depth = 0) {
  if (Depth > 16) { Out += "..."; return; }
  if (!T) { Out += "void"; return; }
  if (auto *B = dyn_cast<DIBasicType>(T)) { Out += B->getName().str(); return; }
  if (auto *D = dyn_cast<DIDerivedType>(T)) {
    switch (D->getTag()) {
    case dwarf::DW_TAG_typedef: Out += D->getName().str(); return;
    case dwarf::DW_TAG_const_type: Out += "const "; spell(D->getBaseType(), Out, Depth + 1); return;
    case dwarf::DW_TAG_volatile_type: Out += "volatile "; spell(D->getBaseType(), Out, Depth + 1); return;
    case dwarf::DW_TAG_atomic_type: Out += "_Atomic "; spell(D->getBaseType(), Out, Depth + 1); return;
    case dwarf::DW_TAG_restrict_type: spell(D->getBaseType(), Out, Depth + 1); Out += " restrict"; return;
    case dwarf::DW_TAG_pointer_type: spell(D->getBaseType(), Out, Depth + 1); Out += " *"; return;
    case dwarf::DW_TAG_reference_type: spell(D->getBaseType(), Out, Depth + 1); Out += " &"; return;
    case dwarf::DW_TAG_rvalue_reference_type: spell(D->getBaseType(), Out, Depth + 1); Out += " &&"; return;
    default: spell(D->getBaseType(), Out, Depth + 1); return;
    }
  }
  if (auto *C = dyn_cast<DICompositeType>(T)) {
    switch (C->getTag()) {
    case dwarf::DW_TAG_structure_type: Out += "struct " + compositeName(C); return;
    case dwarf::DW_TAG_union_type: Out += "union " + compositeName(C); return;
    case dwarf::DW_TAG_enumeration_type: Out += "enum " + compositeName(C); return;
    case dwarf::DW_TAG_array_type: {
      spell(C->getBaseType(), Out, Depth + 1);
      for (const DINode *E : C->getElements()) {
        Out += "[";
        if (auto *S = dyn_cast_or_null<DISubrange>(E))
          if (auto *CI = dyn_cast_if_present<ConstantInt *>(S->getCount()))
            Out += std::to_string(CI->getSExtValue());
        Out += "]";
      }
      return;
    }
    default: Out += compositeName(C); return;
    }
  }
  if (isa<DISubroutineType>(T)) { Out += "function"; return; }
  Out += T->getName().str();
}

size_t copyOut(const std::string &S, char *Buf, size_t Cap) {
  if (Cap) {
    size_t N = S.size() < Cap - 1 ? S.size() : Cap - 1;
    std::memcpy(Buf, S.data(), N);
    Buf[N] = 0;
  }
  return S.size();
}

} // namespace

extern "C" {

// Fills the fields of llvm::PassPluginLibraryInfo for the Rust-defined entry point.
void evotest_plugin_info(uint32_t *Api, const char **Name, const char **Version,
                         void **Register) {
  *Api = LLVM_PLUGIN_API_VERSION;
  *Name = "evotest";
  *Version = "0.1";
  *Register = reinterpret_cast<void *>(&registerCallbacks);
}

// Name of a DILocalVariable / DIGlobalVariable (empty when not a variable).
size_t evotest_divar_name(LLVMMetadataRef Var, char *Buf, size_t Cap) {
  if (auto *V = dyn_cast_or_null<DIVariable>(unwrap(Var))) return copyOut(V->getName().str(), Buf, Cap);
  return copyOut("", Buf, Cap);
}

// 1-based argument number of a DILocalVariable that is a parameter, else 0.
unsigned evotest_divar_arg(LLVMMetadataRef Var) {
  if (auto *V = dyn_cast_or_null<DILocalVariable>(unwrap(Var))) return V->getArg();
  return 0;
}

// Declared type of a variable (may be null).
LLVMMetadataRef evotest_divar_type(LLVMMetadataRef Var) {
  if (auto *V = dyn_cast_or_null<DIVariable>(unwrap(Var))) return wrap(V->getType());
  return nullptr;
}

// Types of a subprogram: Out[0] is the return type (null for void), Out[i] parameter i.
// Returns the number of entries (which may exceed Cap), or -1 without a subroutine type.
int evotest_disubprogram_types(LLVMMetadataRef SP, LLVMMetadataRef *Out, unsigned Cap) {
  auto *S = dyn_cast_or_null<DISubprogram>(unwrap(SP));
  if (!S || !S->getType()) return -1;
  auto Types = S->getType()->getTypeArray();
  unsigned N = Types.size();
  for (unsigned I = 0; I < N && I < Cap; ++I) Out[I] = wrap(Types[I]);
  return (int)N;
}

// Name of the file of a subprogram's declaration, and its line.
unsigned evotest_disubprogram_line(LLVMMetadataRef SP) {
  if (auto *S = dyn_cast_or_null<DISubprogram>(unwrap(SP))) return S->getLine();
  return 0;
}

// C spelling of a type ("unsigned int", "const char *", "uint8_t", "struct node *").
size_t evotest_ditype_spelling(LLVMMetadataRef Ty, char *Buf, size_t Cap) {
  std::string S;
  spell(dyn_cast_or_null<DIType>(unwrap(Ty)), S);
  return copyOut(S, Buf, Cap);
}

// Canonical scalar class of a type after stripping typedefs, cv-qualifiers and enums:
// returns the DWARF base-type encoding (DW_ATE_*) and sets *Bits, or 0 when the type is not a
// scalar base type (pointer, array, struct, void).
unsigned evotest_ditype_scalar(LLVMMetadataRef Ty, uint64_t *Bits) {
  const DIType *T = dyn_cast_or_null<DIType>(unwrap(Ty));
  for (int Depth = 0; T && Depth < 32; ++Depth) {
    if (auto *B = dyn_cast<DIBasicType>(T)) {
      *Bits = B->getSizeInBits();
      return B->getEncoding();
    }
    if (auto *D = dyn_cast<DIDerivedType>(T)) {
      unsigned Tag = D->getTag();
      if (Tag == dwarf::DW_TAG_typedef || Tag == dwarf::DW_TAG_const_type ||
          Tag == dwarf::DW_TAG_volatile_type || Tag == dwarf::DW_TAG_atomic_type) {
        T = D->getBaseType();
        continue;
      }
      return 0;
    }
    if (auto *C = dyn_cast<DICompositeType>(T)) {
      if (C->getTag() == dwarf::DW_TAG_enumeration_type && C->getBaseType()) {
        T = C->getBaseType();
        continue;
      }
      return 0;
    }
    return 0;
  }
  return 0;
}

// The pointee of a pointer type, after stripping typedefs and cv-qualifiers around the pointer
// (`const char *` → `const char`; `uint8_t *` → `uint8_t`), or null when Ty is not a pointer.
// A C++ reference (`const Pt &`, `int &&`) counts as a pointer: the ABI passes its address.
LLVMMetadataRef evotest_ditype_pointee(LLVMMetadataRef Ty) {
  const DIType *T = dyn_cast_or_null<DIType>(unwrap(Ty));
  for (int Depth = 0; T && Depth < 32; ++Depth) {
    auto *D = dyn_cast<DIDerivedType>(T);
    if (!D) return nullptr;
    unsigned Tag = D->getTag();
    if (Tag == dwarf::DW_TAG_pointer_type || Tag == dwarf::DW_TAG_reference_type ||
        Tag == dwarf::DW_TAG_rvalue_reference_type)
      return wrap(D->getBaseType());
    if (Tag == dwarf::DW_TAG_typedef || Tag == dwarf::DW_TAG_const_type ||
        Tag == dwarf::DW_TAG_volatile_type || Tag == dwarf::DW_TAG_restrict_type ||
        Tag == dwarf::DW_TAG_atomic_type) {
      T = D->getBaseType();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

// Subprogram of a local variable's scope (null when none). A variable of a function inlined into
// another has the inlined function's subprogram, and its argument number counts in that function.
LLVMMetadataRef evotest_divar_subprogram(LLVMMetadataRef Var) {
  if (auto *V = dyn_cast_or_null<DILocalVariable>(unwrap(Var)))
    if (auto *S = V->getScope()) return wrap(S->getSubprogram());
  return nullptr;
}

namespace {
const DIType *stripQualifiers(const DIType *T) {
  for (int Depth = 0; T && Depth < 32; ++Depth) {
    auto *D = dyn_cast<DIDerivedType>(T);
    if (!D) return T;
    unsigned Tag = D->getTag();
    if (Tag != dwarf::DW_TAG_typedef && Tag != dwarf::DW_TAG_const_type &&
        Tag != dwarf::DW_TAG_volatile_type && Tag != dwarf::DW_TAG_atomic_type)
      return T;
    T = D->getBaseType();
  }
  return T;
}
} // namespace

// Size in bits of a type after stripping typedefs and qualifiers (0 when unknown).
uint64_t evotest_ditype_size_bits(LLVMMetadataRef Ty) {
  const DIType *T = stripQualifiers(dyn_cast_or_null<DIType>(unwrap(Ty)));
  return T ? T->getSizeInBits() : 0;
}

// The data member of a structure type (after stripping typedefs and qualifiers) that starts at
// OffsetBits: its name goes to Buf, its type is returned. Null when there is no such member (not a
// structure, a gap, or an enum's variant part).
LLVMMetadataRef evotest_ditype_member_at(LLVMMetadataRef Ty, uint64_t OffsetBits, char *Buf, size_t Cap) {
  copyOut("", Buf, Cap);
  auto *C = dyn_cast_or_null<DICompositeType>(stripQualifiers(dyn_cast_or_null<DIType>(unwrap(Ty))));
  if (!C || C->getTag() != dwarf::DW_TAG_structure_type) return nullptr;
  for (const DINode *E : C->getElements()) {
    auto *M = dyn_cast_or_null<DIDerivedType>(E);
    if (!M || M->getTag() != dwarf::DW_TAG_member || M->isStaticMember()) continue;
    if (M->getOffsetInBits() == OffsetBits) {
      copyOut(M->getName().str(), Buf, Cap);
      return wrap(M->getBaseType());
    }
  }
  return nullptr;
}

// The tag of a composite type after stripping typedefs and qualifiers (DW_TAG_structure_type,
// _union_type, _class_type, _array_type, _enumeration_type), or 0 for any other type; sets
// *SizeBits to its size.
unsigned evotest_ditype_composite_tag(LLVMMetadataRef Ty, uint64_t *SizeBits) {
  *SizeBits = 0;
  auto *C = dyn_cast_or_null<DICompositeType>(stripQualifiers(dyn_cast_or_null<DIType>(unwrap(Ty))));
  if (!C) return 0;
  *SizeBits = C->getSizeInBits();
  return C->getTag();
}

// The data members of a structure, union or class type (after stripping typedefs and
// qualifiers), in declaration order, into Out (at most Cap); returns how many there are, or -1
// when the type has a base class (DW_TAG_inheritance) or is not such a type. Static members and
// methods are left out.
int evotest_ditype_members(LLVMMetadataRef Ty, LLVMMetadataRef *Out, unsigned Cap) {
  auto *C = dyn_cast_or_null<DICompositeType>(stripQualifiers(dyn_cast_or_null<DIType>(unwrap(Ty))));
  if (!C) return -1;
  unsigned Tag = C->getTag();
  if (Tag != dwarf::DW_TAG_structure_type && Tag != dwarf::DW_TAG_union_type && Tag != dwarf::DW_TAG_class_type)
    return -1;
  int N = 0;
  for (const DINode *E : C->getElements()) {
    auto *M = dyn_cast_or_null<DIDerivedType>(E);
    if (!M) continue;
    if (M->getTag() == dwarf::DW_TAG_inheritance) return -1;
    if (M->getTag() != dwarf::DW_TAG_member || M->isStaticMember()) continue;
    if ((unsigned)N < Cap) Out[N] = wrap(M);
    ++N;
  }
  return N;
}

// A data member (from evotest_ditype_members): its name into Buf, its offset in bits and whether
// it is a bit-field; returns its type.
LLVMMetadataRef evotest_dimember(LLVMMetadataRef Member, uint64_t *OffsetBits, int *BitField, char *Buf, size_t Cap) {
  auto *M = dyn_cast_or_null<DIDerivedType>(unwrap(Member));
  if (!M) {
    copyOut("", Buf, Cap);
    return nullptr;
  }
  copyOut(M->getName().str(), Buf, Cap);
  *OffsetBits = M->getOffsetInBits();
  *BitField = M->isBitField() ? 1 : 0;
  return wrap(M->getBaseType());
}

// The element type of an array type (after stripping typedefs and qualifiers), with *Count set to
// its number of elements, all dimensions multiplied out (0 when some dimension has no constant
// count: a flexible or variable-length array); null when the type is not an array.
LLVMMetadataRef evotest_ditype_array(LLVMMetadataRef Ty, uint64_t *Count) {
  *Count = 0;
  auto *C = dyn_cast_or_null<DICompositeType>(stripQualifiers(dyn_cast_or_null<DIType>(unwrap(Ty))));
  if (!C || C->getTag() != dwarf::DW_TAG_array_type) return nullptr;
  uint64_t N = 1;
  for (const DINode *E : C->getElements()) {
    auto *R = dyn_cast_or_null<DISubrange>(E);
    if (!R) return wrap(C->getBaseType());
    auto *K = dyn_cast_if_present<ConstantInt *>(R->getCount());
    if (!K || K->getSExtValue() <= 0) return wrap(C->getBaseType());
    N *= (uint64_t)K->getSExtValue();
  }
  *Count = N;
  return wrap(C->getBaseType());
}

// 1 when Ty (after typedefs) is a C++ lvalue reference, 2 for an rvalue reference, else 0.
unsigned evotest_ditype_reference(LLVMMetadataRef Ty) {
  const DIType *T = dyn_cast_or_null<DIType>(unwrap(Ty));
  for (int Depth = 0; T && Depth < 32; ++Depth) {
    auto *D = dyn_cast<DIDerivedType>(T);
    if (!D) return 0;
    switch (D->getTag()) {
    case dwarf::DW_TAG_reference_type: return 1;
    case dwarf::DW_TAG_rvalue_reference_type: return 2;
    case dwarf::DW_TAG_typedef: T = D->getBaseType(); continue;
    default: return 0;
    }
  }
  return 0;
}

// Facts about a structure or class type (after typedefs and qualifiers) that C++ adds: bit 0, it
// is passed by invisible reference (not trivial for the purpose of calls: a user-provided copy
// constructor or destructor, DIFlagTypePassByReference); bit 1, some data member is private or
// protected (a class's members are private unless said otherwise); bit 2, it declares a
// constructor of its own (it is no aggregate, so no `{...}` initialises it). 0 for any other type.
unsigned evotest_ditype_composite_flags(LLVMMetadataRef Ty) {
  auto *C = dyn_cast_or_null<DICompositeType>(stripQualifiers(dyn_cast_or_null<DIType>(unwrap(Ty))));
  if (!C) return 0;
  unsigned Out = 0;
  if (C->getFlags() & DINode::FlagTypePassByReference) Out |= 1;
  bool IsClass = C->getTag() == dwarf::DW_TAG_class_type;
  for (const DINode *E : C->getElements()) {
    if (auto *SP = dyn_cast_or_null<DISubprogram>(E)) {
      if (!SP->isArtificial() && SP->getName() == C->getName()) Out |= 4;
      continue;
    }
    auto *M = dyn_cast_or_null<DIDerivedType>(E);
    if (!M || M->getTag() != dwarf::DW_TAG_member || M->isStaticMember()) continue;
    unsigned Access = M->getFlags() & DINode::FlagAccessibility;
    bool Hidden = Access == DINode::FlagPrivate || Access == DINode::FlagProtected || (Access == 0 && IsClass);
    if (Hidden) Out |= 2;
  }
  return Out;
}

// Ty after typedefs and qualifiers (null for null).
LLVMMetadataRef evotest_ditype_strip(LLVMMetadataRef Ty) {
  return wrap(stripQualifiers(dyn_cast_or_null<DIType>(unwrap(Ty))));
}

// The number of elements of dimension Index (0 = outermost) of the array type Ty (after
// qualifiers and typedefs), or -1 when Ty is not an array type, has no such dimension, or the
// dimension is not a positive constant.
int64_t evotest_ditype_array_dim(LLVMMetadataRef Ty, uint32_t Index) {
  auto *C = dyn_cast_or_null<DICompositeType>(stripQualifiers(dyn_cast_or_null<DIType>(unwrap(Ty))));
  if (!C || C->getTag() != dwarf::DW_TAG_array_type) return -1;
  auto Elements = C->getElements();
  if (Index >= Elements.size()) return -1;
  auto *R = dyn_cast_or_null<DISubrange>(Elements[Index]);
  if (!R) return -1;
  auto *K = dyn_cast_if_present<ConstantInt *>(R->getCount());
  if (!K || K->getSExtValue() <= 0) return -1;
  return K->getSExtValue();
}

// The debug type of a global variable (its first DIGlobalVariable), or null without debug info;
// *Local is set when the variable is a function-local `static` (its scope is not the file).
LLVMMetadataRef evotest_global_ditype(LLVMValueRef Global, int *Local) {
  *Local = 0;
  auto *G = dyn_cast_or_null<GlobalVariable>(unwrap(Global));
  if (!G) return nullptr;
  SmallVector<DIGlobalVariableExpression *, 1> GVs;
  G->getDebugInfo(GVs);
  if (GVs.empty() || !GVs[0]->getVariable()) return nullptr;
  DIGlobalVariable *V = GVs[0]->getVariable();
  if (auto *Scope = V->getScope())
    if (isa<DISubprogram>(Scope) || isa<DILexicalBlockBase>(Scope)) *Local = 1;
  return wrap(V->getType());
}

// Whether an IR function argument carries the `sret` attribute (the caller's return slot).
bool evotest_arg_is_sret(LLVMValueRef Arg) {
  if (auto *A = dyn_cast_or_null<Argument>(unwrap(Arg))) return A->hasStructRetAttr();
  return false;
}

// Strip constant-offset GEPs and casts from pointer Ptr (an operand of instruction Inst): returns
// the base pointer and sets *Offset to the byte offset from it.
LLVMValueRef evotest_pointer_base(LLVMValueRef Inst, LLVMValueRef Ptr, int64_t *Offset) {
  *Offset = 0;
  auto *I = dyn_cast_or_null<Instruction>(unwrap(Inst));
  Value *P = unwrap(Ptr);
  if (!P || !P->getType()->isPointerTy()) return Ptr;
  // an instruction's module, or a constant GEP's global's (`g_lim.hi` at -O0 is a constant
  // expression over @g_lim)
  const Module *M = I ? I->getModule() : nullptr;
  if (!M)
    if (auto *G = dyn_cast<GlobalValue>(P->stripInBoundsOffsets())) M = G->getParent();
  if (!M) return Ptr;
  const DataLayout &DL = M->getDataLayout();
  APInt Off(DL.getIndexTypeSizeInBits(P->getType()), 0);
  Value *Base = P->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
  *Offset = Off.getSExtValue();
  return wrap(Base);
}

// Qualified source name of a subprogram: the names of its enclosing scopes (namespaces, types)
// and its own, joined by "::", e.g. "samples::kinds::generic<f32>" for a Rust function (whose
// DISubprogram name carries its generic arguments) or "f" for a C function.
size_t evotest_disubprogram_qualified_name(LLVMMetadataRef SP, char *Buf, size_t Cap) {
  auto *S = dyn_cast_or_null<DISubprogram>(unwrap(SP));
  if (!S) return copyOut("", Buf, Cap);
  return copyOut(qualified(S->getName().str(), S->getScope()), Buf, Cap);
}

// Source language of a function's compile unit (DW_LANG_*), 0 when unknown.
unsigned evotest_disubprogram_language(LLVMMetadataRef SP) {
  if (auto *S = dyn_cast_or_null<DISubprogram>(unwrap(SP)))
    if (auto *CU = S->getUnit()) {
      DISourceLanguageName L = CU->getSourceLanguage();
      return L.hasVersionedName() ? 0 : L.getName();
    }
  return 0;
}

// Whether function Fn can have a coverage-only clone (src/lite.rs): a definition that will be
// emitted (not `available_externally`), optimised (not `optnone`, as every function at -O0 is),
// not variadic (its clone could not be called with the caller's variable arguments), not naked,
// not `returns_twice` (a context it saves would be its clone's, whose frame is gone when the
// original returns), not a coroutine before splitting, with no block whose address is taken
// (`&&label` tables would jump from the clone into the original), and with no inline asm (a
// `call asm` or an `asm goto`'s `callbr`): the assembler would get its text twice, so that a
// global label it defines is defined twice (an error), and an entry it adds to a section
// (`.pushsection`, `.init_array`) is there twice (a linker set with two entries, an init that
// runs twice). Such a function runs its original, probes and all, in coverage-only executions too,
// where the probes count in the lite map.
bool evotest_can_clone(LLVMValueRef Fn) {
  auto *F = dyn_cast_or_null<Function>(unwrap(Fn));
  if (!F || F->isDeclaration() || F->isVarArg() || F->hasAvailableExternallyLinkage() ||
      F->hasFnAttribute(Attribute::Naked) || F->hasFnAttribute(Attribute::OptimizeNone) ||
      F->hasFnAttribute(Attribute::ReturnsTwice) ||
      F->isPresplitCoroutine())
    return false;
  for (BasicBlock &BB : *F) {
    if (BB.hasAddressTaken()) return false;
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (CB->isInlineAsm()) return false;
  }
  return true;
}

// Clone the body of function Fn into its module as an internal function named Name (its debug
// subprogram cloned with it). Calls in the clone are not redirected.
LLVMValueRef evotest_clone_function(LLVMValueRef Fn, const char *Name) {
  Function *F = unwrap<Function>(Fn);
  ValueToValueMapTy VMap;
  Function *C = CloneFunction(F, VMap);
  C->setName(Name);
  C->setLinkage(GlobalValue::InternalLinkage);
  C->setVisibility(GlobalValue::DefaultVisibility);
  C->setDLLStorageClass(GlobalValue::DefaultStorageClass);
  C->setComdat(nullptr);
  C->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return wrap(C);
}

// At the entry of Fn: when the word the pointer global Flags points at has a bit of Mask set,
// return what Lite (Fn's clone, of the same type) returns for Fn's arguments; otherwise run Fn's
// body. The entry block's static allocas stay in the entry block (moved to its start), so that
// they are still promoted to registers.
void evotest_lite_dispatch(LLVMValueRef Fn, LLVMValueRef Lite, LLVMValueRef Flags, uint32_t Mask) {
  Function *F = unwrap<Function>(Fn);
  Function *L = unwrap<Function>(Lite);
  LLVMContext &Ctx = F->getContext();
  BasicBlock &Entry = F->getEntryBlock();
  // the static allocas first
  SmallVector<AllocaInst *, 16> Allocas;
  for (Instruction &I : Entry)
    if (auto *A = dyn_cast<AllocaInst>(&I))
      if (A->isStaticAlloca()) Allocas.push_back(A);
  Instruction *First = &*Entry.getFirstNonPHIIt();
  for (AllocaInst *A : Allocas)
    if (A != First) A->moveBefore(First->getIterator());
  BasicBlock::iterator It = Entry.begin();
  while (It != Entry.end() && isa<AllocaInst>(&*It) && cast<AllocaInst>(&*It)->isStaticAlloca()) ++It;
  BasicBlock *Full = Entry.splitBasicBlock(It, "evotest.full");
  Entry.getTerminator()->eraseFromParent();
  BasicBlock *LiteBB = BasicBlock::Create(Ctx, "evotest.lite", F, Full);
  IRBuilder<> B(&Entry);
  Type *Ptr = PointerType::get(Ctx, 0);
  Value *At = B.CreateLoad(Ptr, unwrap(Flags));
  Value *Word = B.CreateLoad(B.getInt32Ty(), At);
  Value *On = B.CreateICmpNE(B.CreateAnd(Word, B.getInt32(Mask)), B.getInt32(0));
  B.CreateCondBr(On, LiteBB, Full);
  IRBuilder<> LB(LiteBB);
  SmallVector<Value *, 8> Args;
  for (Argument &A : F->args()) Args.push_back(&A);
  CallInst *Call = LB.CreateCall(L, Args);
  Call->setCallingConv(L->getCallingConv());
  Call->setAttributes(L->getAttributes());
  Call->setTailCall(true);
  // the clone stays a function of its own: inlined here, it would double the size of every
  // caller the original is inlined into
  Call->addFnAttr(Attribute::NoInline);
  if (DISubprogram *SP = F->getSubprogram())
    Call->setDebugLoc(DILocation::get(Ctx, SP->getLine(), 0, SP));
  if (F->getReturnType()->isVoidTy())
    LB.CreateRetVoid();
  else
    LB.CreateRet(Call);
}

// In function Fn (a coverage-only clone), replace each call of SwitchLite (the runtime's
// `__evotest_switch_lite`) that stands before its `switch` by counters on the switch's edges:
// successor K (0 the default, K > 0 case K - 1) adds one, saturating at 255, to outcome
// `ob + K` of the lite map, which the descriptor (the call's first argument) points at from byte
// LiteOffset. The probe counts the same outcome by a binary search over the case values. Calls
// whose value is not the switch's condition are left as they are. Returns the number replaced.
unsigned evotest_lite_switch_edges(LLVMValueRef Fn, LLVMValueRef SwitchLite, uint64_t LiteOffset) {
  Function *F = unwrap<Function>(Fn);
  Value *SL = unwrap(SwitchLite);
  SmallVector<CallInst *, 8> Calls;
  for (BasicBlock &BB : *F)
    for (Instruction &I : BB)
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (CI->getCalledOperand() == SL && CI->arg_size() == 8) Calls.push_back(CI);
  unsigned Done = 0;
  LLVMContext &Ctx = F->getContext();
  Type *I8 = Type::getInt8Ty(Ctx);
  Type *Ptr = PointerType::get(Ctx, 0);
  for (CallInst *CI : Calls) {
    BasicBlock *BB = CI->getParent();
    auto *SI = dyn_cast<SwitchInst>(BB->getTerminator());
    if (!SI) continue;
    Value *V = CI->getArgOperand(3);
    if (auto *C = dyn_cast<CastInst>(V)) V = C->getOperand(0);
    auto *OB = dyn_cast<ConstantInt>(CI->getArgOperand(2));
    auto *N = dyn_cast<ConstantInt>(CI->getArgOperand(5));
    if (V != SI->getCondition() || !OB || !N || N->getZExtValue() != SI->getNumCases()) continue;
    Value *Desc = CI->getArgOperand(0);
    for (unsigned K = 0; K < SI->getNumSuccessors(); ++K) {
      IRBuilder<> B(edgeBlock(SI, K, "evotest.edge"));
      B.SetCurrentDebugLocation(CI->getDebugLoc());
      Value *Counts = B.CreateLoad(Ptr, B.CreateConstInBoundsGEP1_64(I8, Desc, LiteOffset));
      countByte(B, B.CreateConstInBoundsGEP1_64(I8, Counts, OB->getZExtValue() + K));
    }
    CI->eraseFromParent();
    ++Done;
  }
  return Done;
}

// In clone Fn, the counts of the two-outcome branches and selects become marks that the
// optimiser can move around without disturbing the program: each call of an inline twin (a
// defined function of Twins: the probe's parameters, the descriptor first, the outcome base
// third, and the condition last) that the pass marked as a `br` or `select` site's probe
// (LITE_BRANCH_MD) and that stands right before its conditional `br` or `select` becomes `h = __evotest_lite_mark(&desc->lite, ob, holds)`, and the `br` or `select` tests `h`.
// The mark touches only memory the program cannot reach (`inaccessiblememonly`), so loads and
// stores move across it; it has an effect, so it is neither removed, merged with another nor
// hoisted out of a loop, and it stays in the branch's block: each evaluation of the branch
// counts once, as in the full probes. EvotestLowerMarks turns it into the count after
// optimisation. Other twins (a condition-only site, whose value has no branch) stay calls.
// Returns the number of marks.
unsigned evotest_lite_marks(LLVMValueRef Fn, LLVMValueRef *Twins, unsigned NTwins, uint64_t LiteOffset) {
  Function *F = unwrap<Function>(Fn);
  Module *M = F->getParent();
  LLVMContext &Ctx = M->getContext();
  Type *Ptr = PointerType::get(Ctx, 0), *I1 = Type::getInt1Ty(Ctx), *I32 = Type::getInt32Ty(Ctx);
  SmallPtrSet<Value *, 32> Set;
  for (unsigned K = 0; K < NTwins; ++K) {
    Function *T = unwrap<Function>(Twins[K]);
    if (!T->isDeclaration()) Set.insert(T);
  }
  SmallVector<std::pair<CallInst *, Instruction *>, 32> Calls;
  for (BasicBlock &BB : *F)
    for (Instruction &I : BB)
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (Set.count(CI->getCalledOperand()) && CI->getMetadata(LITE_BRANCH_MD) && CI->arg_size() >= 4 &&
            isa<ConstantInt>(CI->getArgOperand(2)) && CI->getArgOperand(2)->getType() == I32 &&
            CI->getArgOperand(CI->arg_size() - 1)->getType() == I1) {
          // the site's own probe, right before it (nothing was put in between)
          Instruction *Next = CI->getNextNode();
          auto *Br = dyn_cast_or_null<BranchInst>(Next);
          auto *Sel = dyn_cast_or_null<SelectInst>(Next);
          if ((Br && Br->isConditional()) || (Sel && Sel->getCondition()->getType() == I1)) Calls.push_back({CI, Next});
        }
  if (Calls.empty()) return 0;
  FunctionCallee MarkFn = M->getOrInsertFunction(LITE_MARK, FunctionType::get(I1, {Ptr, I32, I1}, false));
  auto *Mark = cast<Function>(MarkFn.getCallee());
  Mark->setMemoryEffects(MemoryEffects::inaccessibleMemOnly());
  Mark->setDoesNotThrow();
  Mark->addFnAttr(Attribute::WillReturn);
  Mark->addFnAttr(Attribute::NoCallback);
  Type *I8 = Type::getInt8Ty(Ctx);
  for (auto [CI, Site] : Calls) {
    IRBuilder<> B(CI);
    Value *Lite = B.CreateConstInBoundsGEP1_64(I8, CI->getArgOperand(0), LiteOffset);
    CallInst *H = B.CreateCall(MarkFn, {Lite, CI->getArgOperand(2), CI->getArgOperand(CI->arg_size() - 1)});
    H->setDebugLoc(CI->getDebugLoc());
    if (auto *Br = dyn_cast<BranchInst>(Site))
      Br->setCondition(H);
    else
      cast<SelectInst>(Site)->setCondition(H);
    CI->eraseFromParent();
  }
  return Calls.size();
}

} // extern "C"
