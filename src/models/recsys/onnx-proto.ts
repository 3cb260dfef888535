/**
 * The protobuf wire format of ONNX's ModelProto (field numbers of onnx/onnx.proto), only what a
 * scoring graph needs: model, opset ids, graph, nodes, attributes, tensors, value infos, metadata.
 * Hand-written rather than a protobuf library: pure TS with no Node APIs, so a model file can be
 * written in the browser as well, and the subset is ~150 lines where a generated ONNX binding is
 * thousands. Messages are kept as lists of byte chunks, so a large initializer (the embedding
 * stack) is copied once, into the final file.
 * Legend: N = symbolic batch dimension, dims = tensor shape, raw = little-endian element bytes.
 */

/** ONNX TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, UINT8: 2, INT32: 6, INT64: 7, STRING: 8, BOOL: 9, UINT32: 12 } as const
export type DataTypeCode = (typeof DataType)[keyof typeof DataType]

/** AttributeProto.AttributeType values used here. */
const AttrType = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, INTS: 7 } as const

const utf8 = new TextEncoder()

/** A protobuf message under construction: its bytes as chunks, in order. */
export class Message {
  readonly chunks: Uint8Array[] = []
  length = 0

  private push(b: Uint8Array): void {
    this.chunks.push(b)
    this.length += b.length
  }

  private key(field: number, wire: number): void {
    this.push(varint(BigInt(field * 8 + wire)))
  }

  /** A varint field (int32, int64, enum); negative values as 64-bit two's complement. */
  int(field: number, v: number | bigint): this {
    this.key(field, 0)
    this.push(varint(BigInt.asUintN(64, BigInt(v))))
    return this
  }

  /** A fixed32 float field. */
  float(field: number, v: number): this {
    this.key(field, 5)
    const b = new Uint8Array(4)
    new DataView(b.buffer).setFloat32(0, v, true)
    this.push(b)
    return this
  }

  /** A length-delimited bytes field. */
  bytes(field: number, b: Uint8Array): this {
    this.key(field, 2)
    this.push(varint(BigInt(b.length)))
    this.push(b)
    return this
  }

  /** A string field (UTF-8). */
  string(field: number, s: string): this {
    return this.bytes(field, utf8.encode(s))
  }

  /** An embedded message field; its chunks are shared, not copied. */
  message(field: number, m: Message): this {
    this.key(field, 2)
    this.push(varint(BigInt(m.length)))
    for (const c of m.chunks) this.push(c)
    return this
  }

  /** The message's bytes, one contiguous array. */
  finish(): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(this.length)
    let at = 0
    for (const c of this.chunks) {
      out.set(c, at)
      at += c.length
    }
    return out
  }
}

function varint(v: bigint): Uint8Array {
  const out: number[] = []
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return Uint8Array.from(out)
}

/** TensorProto: dims (1), data_type (2), name (8), raw_data (9). */
export function tensorProto(name: string, type: DataTypeCode, dims: readonly number[], raw: Uint8Array): Message {
  const m = new Message()
  for (const d of dims) m.int(1, d)
  return m.int(2, type).string(8, name).bytes(9, raw)
}

/** An attribute value: number (INT unless `float`), number[] (INTS), string, or a tensor. */
export type AttrValue = number | number[] | string | { float: number } | { tensor: Message }

/** AttributeProto: name (1), f (2), i (3), s (4), t (5), ints (8), type (20). */
function attributeProto(name: string, v: AttrValue): Message {
  const m = new Message().string(1, name)
  if (typeof v === 'number') return m.int(3, v).int(20, AttrType.INT)
  if (typeof v === 'string') return m.string(4, v).int(20, AttrType.STRING)
  if (Array.isArray(v)) {
    for (const x of v) m.int(8, x)
    return m.int(20, AttrType.INTS)
  }
  if ('float' in v) return m.float(2, v.float).int(20, AttrType.FLOAT)
  return m.message(5, v.tensor).int(20, AttrType.TENSOR)
}

/** One graph node. */
export interface NodeSpec {
  op: string
  inputs: string[]
  outputs: string[]
  name: string
  attrs?: Record<string, AttrValue>
  /** Operator set domain ('' = ai.onnx, 'com.microsoft' = onnxruntime's contrib ops). */
  domain?: string
}

/** NodeProto: input (1), output (2), name (3), op_type (4), attribute (5), domain (7). */
export function nodeProto(n: NodeSpec): Message {
  const m = new Message()
  for (const i of n.inputs) m.string(1, i)
  for (const o of n.outputs) m.string(2, o)
  m.string(3, n.name).string(4, n.op)
  for (const [k, v] of Object.entries(n.attrs ?? {})) m.message(5, attributeProto(k, v))
  if (n.domain) m.string(7, n.domain)
  return m
}

/**
 * ValueInfoProto name (1), type (2) → TypeProto.tensor_type (1) → elem_type (1), shape (2) →
 * TensorShapeProto.dim (1) → dim_value (1) | dim_param (2). A string dim is symbolic.
 */
export function valueInfoProto(name: string, type: DataTypeCode, dims: readonly (number | string)[]): Message {
  const shape = new Message()
  for (const d of dims) shape.message(1, typeof d === 'string' ? new Message().string(2, d) : new Message().int(1, d))
  const tensorType = new Message().int(1, type).message(2, shape)
  return new Message().string(1, name).message(2, new Message().message(1, tensorType))
}

/** GraphProto: node (1), name (2), initializer (5), doc_string (10), input (11), output (12). */
export function graphProto(g: {
  name: string
  nodes: Message[]
  initializers: Message[]
  inputs: Message[]
  outputs: Message[]
  doc?: string
}): Message {
  const m = new Message()
  for (const n of g.nodes) m.message(1, n)
  m.string(2, g.name)
  for (const t of g.initializers) m.message(5, t)
  if (g.doc) m.string(10, g.doc)
  for (const i of g.inputs) m.message(11, i)
  for (const o of g.outputs) m.message(12, o)
  return m
}

/**
 * ModelProto: ir_version (1), producer_name (2), producer_version (3), doc_string (6), graph (7),
 * opset_import (8: OperatorSetIdProto domain (1), version (2)), metadata_props (14: key (1), value (2)).
 */
export function modelProto(m: {
  irVersion: number
  opsets: Record<string, number>
  producer: string
  producerVersion?: string
  doc?: string
  graph: Message
  metadata?: Record<string, string>
}): Message {
  const out = new Message().int(1, m.irVersion).string(2, m.producer)
  if (m.producerVersion) out.string(3, m.producerVersion)
  if (m.doc) out.string(6, m.doc)
  out.message(7, m.graph)
  for (const [domain, version] of Object.entries(m.opsets))
    out.message(8, new Message().string(1, domain).int(2, version))
  for (const [k, v] of Object.entries(m.metadata ?? {})) out.message(14, new Message().string(1, k).string(2, v))
  return out
}
