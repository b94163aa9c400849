//! Structure parameters: a `struct` passed by value or through a pointer, built member by member.
//!
//! The pass describes the structure from its debug type ([`CompositeMeta`]): scalar members,
//! arrays of them and nested structures by value. Each scalar member (each array element) is one
//! field, in declaration order, named by its C access path (`r.tl.x`, `r.tags[2]`).
//!
//! The generated C declares a structure of its own with the same members in the same order
//! (`struct evotest_r0 { int x; int y; };`), so the harness needs no header of the program. Same
//! scalar types in the same order give the same layout and the same calling convention, which
//! is checked against the debug info's offsets and size: a packed structure or one with aligned
//! members is refused. `tests.c`, which includes the program's source, builds values of the
//! source's own type with designated initializers (`(struct point){ .x = 1, .y = 2 }`).
//!
//! A `char *` member is a string ([`MemberType::String`]): a length leaf and [`STRING_MAX`]
//! printable character leaves, allocated afresh for each execution.
//!
//! A pointer to the structure's own type (`struct node *next`, `left`, `right`) is a link
//! ([`MemberType::Link`]): a structure with links passed through a pointer is a list or a tree,
//! built from a pool of nodes (see [`super::shape`]), the way GödelTest's generators build
//! structured data from choice points (Feldt & Poulding 2013): each link's leaf chooses the
//! node it points to, or `NULL`.
//!
//! Refused in one line (the pass gives the reason): unions, bit-fields, other pointer members,
//! flexible arrays, base classes, more than 512 scalar members.

use crate::input::{c_literal, DisplayValue, ScalarType, Value};
use anyhow::{bail, Result};
use evotest_abi::meta::CompositeMeta;
use serde_json::{Map, Value as Json};

/// A structure type as generated C builds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The type as the source spells it, without qualifiers (`struct point`, `size2`).
    pub spelling: String,
    pub members: Vec<Member>,
}

/// A data member of a [`Record`].
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub name: String,
    pub ty: MemberType,
    /// For an array member, its number of elements (all dimensions multiplied out).
    pub count: Option<usize>,
}

/// The type of a member (of each element, for an array member).
#[derive(Clone, Debug, PartialEq)]
pub enum MemberType {
    /// A scalar, with the C type name generated C declares it with, and for an enumeration its
    /// source spelling (`enum ns::Mode`): C++ converts no integer to an enumeration implicitly,
    /// so an initializer with the source's types casts the value to it.
    Scalar {
        ty: ScalarType,
        c: String,
        enumeration: Option<String>,
    },
    Record(Box<Record>),
    /// A `char *` member: a NUL-terminated string of 0 to [`STRING_MAX`] printable characters of
    /// type `ty` (`char`, `unsigned char`), allocated afresh for each execution.
    String {
        ty: ScalarType,
        c: String,
    },
    /// A pointer to another structure of the same type (`struct node *next`): a link of a list or
    /// a tree. Its leaf holds how many nodes further on the node it points to is, in a pool of
    /// nodes (see [`super::shape`]); 0, or a node past those in use, is `NULL`. Links only point
    /// forwards, so the nodes form no cycle: lists, trees, and shared subtrees.
    Link,
}

/// Most characters of a string member (as for a `char *` parameter without `--string`).
pub const STRING_MAX: usize = super::shape::DEFAULT_STRING_MAX;

/// What a leaf is to the input model: a value, or the length or a character of a string member.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LeafRole {
    Value,
    Length,
    Char,
    /// A [`MemberType::Link`]: 0 for `NULL`, k for the node k places further on in the pool.
    Link,
}

/// One scalar of a record, in declaration order: its access path from the record (`.tl.x`,
/// `.tags[2]`) and its type.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaf {
    pub path: String,
    pub ty: ScalarType,
    pub role: LeafRole,
}

/// The source spelling of a type without its qualifiers (`const struct point` → `struct point`).
fn unqualified(spelling: &str) -> String {
    let mut s = spelling.trim();
    loop {
        let t = s
            .trim_start_matches("const ")
            .trim_start_matches("volatile ")
            .trim();
        if t == s {
            break;
        }
        s = t;
    }
    s.to_string()
}

impl Record {
    /// The record of composite `c`, spelled `spelling` in the source.
    ///
    /// Errors (one line): a type the pass marked unsupported (a union, a bit-field, a pointer
    /// member, …), a scalar evotest has no type for, or a layout that differs from the one its
    /// members give in order (a packed structure, aligned members).
    pub fn of(c: &CompositeMeta, spelling: &str) -> Result<Record> {
        let spelling = unqualified(spelling);
        if matches!(
            spelling.as_str(),
            "string" | "wstring" | "string_view" | "u8string" | "u16string" | "u32string"
        ) {
            bail!("`std::{spelling}` parameters are not supported yet: test a wrapper that takes `const char *` and builds one");
        }
        if spelling.starts_with("std::") || spelling.contains(" std::") {
            bail!("`{spelling}` is a C++ library type, which evotest cannot build yet (it builds structures and classes of scalars): test a wrapper that takes plain C parameters (for a container, a pointer and a length) and builds one");
        }
        if c.tag != "struct" && c.tag != "class" {
            bail!(
                "`{spelling}` is a {}; evotest builds structures and classes of scalars only",
                c.tag
            );
        }
        if let Some(why) = &c.unsupported {
            bail!("`{spelling}` cannot be built member by member ({why}); evotest builds structures of scalars, arrays of them and nested structures");
        }
        let mut members = Vec::new();
        for m in &c.members {
            let char_pointee = m.ty.pointee.as_deref().and_then(|p| {
                p.scalar
                    .as_ref()
                    .and_then(ScalarType::from_meta)
                    .map(|t| (t, p))
            });
            let ty = match (
                &m.ty.composite,
                m.ty.scalar.as_ref().and_then(ScalarType::from_meta),
                char_pointee,
            ) {
                _ if m.link => MemberType::Link,
                (None, Some(t), _) => MemberType::Scalar {
                    ty: t,
                    c: super::shape::c_name(&m.ty.c_spelling, t),
                    enumeration: m
                        .ty
                        .c_spelling
                        .contains("enum ")
                        .then(|| m.ty.c_spelling.clone()),
                },
                (Some(inner), _, _) => {
                    MemberType::Record(Box::new(Record::of(inner, &m.ty.c_spelling)?))
                }
                (None, None, Some((t @ (ScalarType::I8 | ScalarType::U8), p)))
                    if m.count.is_none() =>
                {
                    MemberType::String {
                        ty: t,
                        c: super::shape::c_name(&p.c_spelling, t),
                    }
                }
                _ => bail!(
                    "member `{}` of `{spelling}` has type `{}`, which evotest cannot generate yet",
                    m.name,
                    m.ty.c_spelling
                ),
            };
            members.push(Member {
                name: m.name.clone(),
                ty,
                count: m.count.map(|n| n as usize),
            });
        }
        let r = Record {
            spelling: spelling.clone(),
            members,
        };
        // the layout the generated definition gets must be the program's
        let (size, _, offsets) = r.layout();
        let theirs: Vec<usize> = c
            .members
            .iter()
            .map(|m| (m.offset_bits / 8) as usize)
            .collect();
        if offsets != theirs || size as u64 * 8 != c.size_bits {
            bail!(
                "`{spelling}` is packed or has aligned members (its layout is not the one its members give in order), \
                 which evotest cannot rebuild yet"
            );
        }
        Ok(r)
    }

    /// Size and alignment in bytes, and each member's offset, under the natural alignment of the
    /// x86-64 System V ABI (a scalar is aligned to its size).
    fn layout(&self) -> (usize, usize, Vec<usize>) {
        let (mut off, mut align, mut offsets) = (0usize, 1usize, vec![]);
        for m in &self.members {
            let (s, a) = match &m.ty {
                MemberType::Scalar { ty, .. } => (ty.size(), ty.size()),
                MemberType::String { .. } | MemberType::Link => (8, 8),
                MemberType::Record(r) => {
                    let (s, a, _) = r.layout();
                    (s, a)
                }
            };
            off = off.div_ceil(a) * a;
            offsets.push(off);
            off += s * m.count.unwrap_or(1);
            align = align.max(a);
        }
        (off.div_ceil(align) * align, align, offsets)
    }

    /// The scalars in declaration order (each array element one by one).
    pub fn leaves(&self) -> Vec<Leaf> {
        let mut out = vec![];
        self.collect_leaves("", &mut out);
        out
    }

    fn collect_leaves(&self, prefix: &str, out: &mut Vec<Leaf>) {
        for m in &self.members {
            let paths: Vec<String> = match m.count {
                None => vec![format!("{prefix}.{}", m.name)],
                Some(n) => (0..n)
                    .map(|k| format!("{prefix}.{}[{k}]", m.name))
                    .collect(),
            };
            for p in paths {
                match &m.ty {
                    MemberType::Scalar { ty, .. } => out.push(Leaf {
                        path: p,
                        ty: *ty,
                        role: LeafRole::Value,
                    }),
                    MemberType::Record(r) => r.collect_leaves(&p, out),
                    MemberType::String { ty, .. } => {
                        out.push(Leaf {
                            path: format!("{p}.len"),
                            ty: ScalarType::U32,
                            role: LeafRole::Length,
                        });
                        out.extend((0..STRING_MAX).map(|k| Leaf {
                            path: format!("{p}[{k}]"),
                            ty: *ty,
                            role: LeafRole::Char,
                        }));
                    }
                    MemberType::Link => out.push(Leaf {
                        path: p,
                        ty: ScalarType::U8,
                        role: LeafRole::Link,
                    }),
                }
            }
        }
    }

    /// C definitions of the generated type `struct <tag>` and of the types of its nested
    /// structures (`struct <tag>_<k>` for member k), innermost first.
    pub fn c_definitions(&self, tag: &str) -> String {
        let mut s = String::new();
        let mut body = String::new();
        for (k, m) in self.members.iter().enumerate() {
            let t = match &m.ty {
                MemberType::Scalar { c, .. } => c.clone(),
                MemberType::String { c, .. } => format!("{c} *"),
                MemberType::Link => format!("struct {tag} *"),
                MemberType::Record(r) => {
                    let inner = format!("{tag}_{k}");
                    s.push_str(&r.c_definitions(&inner));
                    format!("struct {inner}")
                }
            };
            match m.count {
                None => body.push_str(&format!(" {t} {};", m.name)),
                Some(n) => body.push_str(&format!(" {t} {}[{n}];", m.name)),
            }
        }
        s.push_str(&format!("struct {tag} {{{body} }};\n"));
        s
    }

    /// Whether the record has links ([`MemberType::Link`]): its values are nodes of a list or a
    /// tree, built in a pool.
    pub fn has_links(&self) -> bool {
        self.members.iter().any(|m| m.ty == MemberType::Link)
    }

    /// The links' member names, each with its leaf's index among [`Self::leaves`].
    pub fn link_paths(&self) -> Vec<(usize, String)> {
        self.leaves()
            .into_iter()
            .enumerate()
            .filter(|(_, l)| l.role == LeafRole::Link)
            .map(|(i, l)| (i, l.path))
            .collect()
    }

    /// The access paths of the string members, from `prefix` (for `free` after a call): the
    /// paths of the length leaves without their `.len`.
    pub fn string_paths(&self, prefix: &str) -> Vec<String> {
        self.leaves()
            .iter()
            .filter(|l| l.role == LeafRole::Length)
            .map(|l| format!("{prefix}{}", l.path.strip_suffix(".len").unwrap_or(&l.path)))
            .collect()
    }

    /// Fold the record's value, its leaves' values taken in order from `values`: `leaf` renders a
    /// scalar, `string` the bytes of a string member, `array` the elements of an array member,
    /// `object` the (member name, rendering) pairs of a structure.
    fn fold<T>(&self, values: &mut dyn Iterator<Item = Value>, r: &Renderer<T>) -> T {
        let one = |m: &Member, values: &mut dyn Iterator<Item = Value>| -> T {
            match &m.ty {
                MemberType::Scalar {
                    ty, enumeration, ..
                } => {
                    let v = (r.leaf)(*ty, values.next().unwrap_or(Value::Int(0)));
                    match (enumeration, &r.enumeration) {
                        (Some(e), Some(cast)) => cast(e, v),
                        _ => v,
                    }
                }
                MemberType::Record(inner) => inner.fold(values, r),
                MemberType::String { c, .. } => {
                    let n = values
                        .next()
                        .map_or(0, |v| v.as_i128().clamp(0, STRING_MAX as i128) as usize);
                    let chars: Vec<u8> = (0..STRING_MAX)
                        .map(|_| values.next().map_or(0, |v| v.as_i128() as u8))
                        .collect();
                    (r.string)(chars[..n].to_vec(), c)
                }
                MemberType::Link => (r.link)(values.next().map_or(0, |v| v.as_i128())),
            }
        };
        let (array, object) = (&r.array, &r.object);
        let parts = self
            .members
            .iter()
            .map(|m| {
                let v = match m.count {
                    None => one(m, values),
                    Some(n) => array((0..n).map(|_| one(m, values)).collect()),
                };
                (m.name.as_str(), v)
            })
            .collect();
        object(parts)
    }

    /// A C initializer of the record from its leaves' values in order (`{ .x = 1, .tl = { .x =
    /// 2, .y = 3 }, .tags = { 4, 5 } }`); links are `0` (set afterwards, [`Self::link_paths`]).
    ///
    /// With `source_types` (the code that uses it sees the source's own types), an enumeration
    /// member's value is cast to its type (`.m = (enum ns::Mode)1`), which C++ needs.
    pub fn c_initializer(
        &self,
        values: &mut dyn Iterator<Item = Value>,
        source_types: bool,
    ) -> String {
        self.fold(
            values,
            &Renderer {
                leaf: Box::new(c_literal),
                enumeration: source_types
                    .then(|| Box::new(|e: &str, v: String| format!("({e}){v}")) as Box<_>),
                // a writable copy (the function may write through the member), as the
                // harness's own allocation is ([`super::shape::C_TEST_GUARD`]'s `EVOTEST_STR`)
                string: Box::new(|b, c| {
                    let t = c.replace("const", " ");
                    format!(
                        "EVOTEST_STR({}, {})",
                        t.split_whitespace().collect::<Vec<_>>().join(" "),
                        super::shape::c_string(&b)
                    )
                }),
                link: Box::new(|_| "0".to_string()),
                array: Box::new(|els| format!("{{ {} }}", els.join(", "))),
                object: Box::new(|ms| {
                    format!(
                        "{{ {} }}",
                        ms.iter()
                            .map(|(n, v)| format!(".{n} = {v}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }),
            },
        )
    }

    /// Where a link of node `k` of a pool whose first `n` nodes are in use points: the node's
    /// index, or `None` for `NULL` (a link of 0, or past the nodes in use). Without a pool
    /// (`node` is `None`), every link is `NULL`.
    fn link_target(link: i128, node: Option<(usize, usize)>) -> Option<usize> {
        let (k, n) = node?;
        let t = k + usize::try_from(link).ok()?;
        (link > 0 && t < n).then_some(t)
    }

    /// The value for people: `{x: 1, tl: {x: 2, y: 3}, tags: [4, 5]}`; a link as the index of
    /// the node it points to (`next: #3`) or `null`, for node `k` of `n` in use (`node`).
    pub fn display(
        &self,
        values: &mut dyn Iterator<Item = Value>,
        node: Option<(usize, usize)>,
    ) -> String {
        self.fold(
            values,
            &Renderer {
                leaf: Box::new(|t, v| DisplayValue(t, v).to_string()),
                enumeration: None,
                string: Box::new(|b, _| super::shape::c_string(&b)),
                link: Box::new(move |o| {
                    Self::link_target(o, node)
                        .map_or_else(|| "null".to_string(), |t| format!("#{t}"))
                }),
                array: Box::new(|els| format!("[{}]", els.join(", "))),
                object: Box::new(|ms| {
                    format!(
                        "{{{}}}",
                        ms.iter()
                            .map(|(n, v)| format!("{n}: {v}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }),
            },
        )
    }

    /// The value as a JSON object (arrays as arrays, nested structures as objects, a link as the
    /// index of the node it points to or `null`, as in [`Self::display`]).
    pub fn json(
        &self,
        values: &mut dyn Iterator<Item = Value>,
        num: &dyn Fn(ScalarType, Value) -> Json,
        node: Option<(usize, usize)>,
    ) -> Json {
        self.fold(
            values,
            &Renderer {
                leaf: Box::new(num),
                enumeration: None,
                string: Box::new(|b, _| Json::String(String::from_utf8_lossy(&b).into_owned())),
                link: Box::new(move |o| Self::link_target(o, node).map_or(Json::Null, Json::from)),
                array: Box::new(Json::Array),
                object: Box::new(|ms| {
                    Json::Object(
                        ms.into_iter()
                            .map(|(n, v)| (n.to_string(), v))
                            .collect::<Map<String, Json>>(),
                    )
                }),
            },
        )
    }
}

/// How [`Record::fold`] renders each kind of part.
struct Renderer<'a, T> {
    leaf: Box<dyn Fn(ScalarType, Value) -> T + 'a>,
    /// An enumeration member's leaf, given its type's spelling (`None`: as any scalar's).
    #[allow(clippy::type_complexity)]
    enumeration: Option<Box<dyn Fn(&str, T) -> T + 'a>>,
    /// A string member's characters, with its element's C type (`char`, `const unsigned char`).
    #[allow(clippy::type_complexity)]
    string: Box<dyn Fn(Vec<u8>, &str) -> T + 'a>,
    /// A link's leaf value (0: `NULL`; k: k nodes further on).
    link: Box<dyn Fn(i128) -> T + 'a>,
    array: Box<dyn Fn(Vec<T>) -> T + 'a>,
    object: Box<dyn Fn(Vec<(&str, T)>) -> T + 'a>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use evotest_abi::meta::{MemberMeta, ScalarKind, ScalarMeta, TypeMeta};

    fn scalar(c: &str, kind: ScalarKind, bits: u32) -> TypeMeta {
        TypeMeta {
            canonical: None,
            c_spelling: c.into(),
            ir: String::new(),
            scalar: Some(ScalarMeta { kind, bits }),
            pointee: None,
            composite: None,
            array: None,
            reference: 0,
        }
    }

    fn member(name: &str, off: u64, ty: TypeMeta, count: Option<u64>) -> MemberMeta {
        MemberMeta {
            name: name.into(),
            offset_bits: off,
            ty,
            count,
            link: false,
        }
    }

    fn point() -> CompositeMeta {
        let int = scalar("int", ScalarKind::Signed, 32);
        CompositeMeta {
            tag: "struct".into(),
            size_bits: 64,
            members: vec![
                member("x", 0, int.clone(), None),
                member("y", 32, int, None),
            ],
            unsupported: None,
            passed_indirectly: false,
        }
    }

    /// struct rect { struct point tl; char c; double d[2]; }: offsets 0, 8, 16; size 32.
    fn rect() -> CompositeMeta {
        let p = TypeMeta {
            composite: Some(Box::new(point())),
            ..scalar("struct point", ScalarKind::Signed, 32)
        };
        let p = TypeMeta { scalar: None, ..p };
        CompositeMeta {
            tag: "struct".into(),
            size_bits: 256,
            members: vec![
                member("tl", 0, p, None),
                member("c", 64, scalar("char", ScalarKind::Signed, 8), None),
                member("d", 128, scalar("double", ScalarKind::Float, 64), Some(2)),
            ],
            unsupported: None,
            passed_indirectly: false,
        }
    }

    #[test]
    fn leaves_definitions_and_initializers_follow_the_members() {
        let r = Record::of(&rect(), "const struct rect").unwrap();
        assert_eq!(r.spelling, "struct rect");
        let paths: Vec<String> = r.leaves().iter().map(|l| l.path.clone()).collect();
        assert_eq!(paths, [".tl.x", ".tl.y", ".c", ".d[0]", ".d[1]"]);
        assert_eq!(r.c_definitions("evotest_r0"), "struct evotest_r0_0 { int x; int y; };\nstruct evotest_r0 { struct evotest_r0_0 tl; char c; double d[2]; };\n");
        let vals = [
            Value::Int(1),
            Value::Int(-2),
            Value::Int(65),
            Value::Float(0.5),
            Value::Float(-1.0),
        ];
        assert_eq!(
            r.c_initializer(&mut vals.iter().copied(), false),
            "{ .tl = { .x = 1, .y = -2 }, .c = 65, .d = { 0x1p-1, -0x1p+0 } }"
        );
        assert_eq!(
            r.display(&mut vals.iter().copied(), None),
            "{tl: {x: 1, y: -2}, c: 65, d: [0.5, -1.0]}"
        );
    }

    #[test]
    fn unsupported_and_repacked_structures_are_refused_in_one_line() {
        let mut u = point();
        u.unsupported = Some("pointer member `next`".into());
        let e = Record::of(&u, "struct node").unwrap_err().to_string();
        assert!(
            e.contains("`struct node` cannot be built member by member (pointer member `next`)"),
            "{e}"
        );
        let mut packed = rect();
        packed.members[2].offset_bits = 72; // __attribute__((packed)): d right after c
        packed.size_bits = 200;
        let e = Record::of(&packed, "struct rect").unwrap_err().to_string();
        assert!(e.contains("packed"), "{e}");
    }
}
