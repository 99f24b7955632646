/**
 * The wire form of engine values: bytes as base64, float vectors as number arrays, an AkashicError as its error
 * body, everything else as JSON has it; found wherever they sit in a value (plain values take a faster path that must
 * give the same text).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AkashicError } from '../../src/index.js';
import { recordFromWire, toWireJson, wireReplacer } from '../../src/protocol/wire-codec.js';

describe('toWireJson', () => {
  it('writes a value holding no bytes, vectors or errors exactly as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(toWireJson(v)).toBe(JSON.stringify(v ?? null));
      }),
    );
    expect(toWireJson(undefined)).toBe('null');
    expect(toWireJson({ a: undefined, at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it('finds bytes, vectors and errors however deep they sit', () => {
    const bytes = new Uint8Array([0, 1, 2, 250]);
    const value = {
      chunks: [{ text: 'x', payload: bytes, embedding: { model: 'm', vector: new Float32Array([0.5, -1.25]) } }, { text: 'y', payload: null }],
      compactionError: new AkashicError('AKASHIC_MODEL', 'the model failed'),
      raw: Buffer.from('hi'),
    };
    expect(JSON.parse(toWireJson(value))).toEqual({
      chunks: [{ text: 'x', payload: 'AAEC+g==', embedding: { model: 'm', vector: [0.5, -1.25] } }, { text: 'y', payload: null }],
      compactionError: { code: 'AKASHIC_MODEL', message: 'the model failed' },
      raw: 'aGk=',
    });
    let deep: unknown = { payload: bytes };
    for (let i = 0; i < 100; i++) deep = i % 2 === 0 ? [deep] : { inner: deep };
    expect(toWireJson(deep)).toBe(JSON.stringify(deep, wireReplacer));
    expect(toWireJson(deep)).toContain('"AAEC+g=="');
  });

  it('round-trips a record through recordFromWire', () => {
    const record = { text: 'x', payload: new Uint8Array([9, 8, 7]), embedding: { model: 'm', vector: new Float32Array([0.1, 0.2]) } };
    const back = recordFromWire(JSON.parse(toWireJson(record)) as typeof record);
    expect(back.payload).toEqual(record.payload);
    expect(back.embedding.vector).toEqual(record.embedding.vector);
  });
});
