import { describe, expect, it } from "vitest";
import { countSegments, isGsm7 } from "#core/shared/segments";

const a = (n: number) => "a".repeat(n);
const euro = (n: number) => "€".repeat(n);
const han = (n: number) => "中".repeat(n);
const emoji = (n: number) => "😀".repeat(n);

describe("SMS segment counting", () => {
  it.each([
    ["empty body", "", "GSM7", 0, 0, 0],
    ["one character", "a", "GSM7", 1, 1, 1],
    ["160 GSM-7 characters fill one segment", a(160), "GSM7", 1, 160, 160],
    ["161 GSM-7 characters need two", a(161), "GSM7", 2, 161, 161],
    ["153 × 2 fill two concatenated segments", a(306), "GSM7", 2, 306, 306],
    ["153 × 2 + 1 needs three", a(307), "GSM7", 3, 307, 307],
    ["153 × 3", a(459), "GSM7", 3, 459, 459],
    ["GSM-7 accented letters are basic", "àÄéÑöü£¥§¿¡ΔΩ", "GSM7", 1, 13, 13],
    ["newline and carriage return are basic", "a\nb\rc", "GSM7", 1, 5, 5],
    ["a euro sign takes two septets", "€", "GSM7", 1, 1, 2],
    ["80 euro signs are exactly 160 septets", euro(80), "GSM7", 1, 80, 160],
    ["81 euro signs overflow one segment", euro(81), "GSM7", 2, 81, 162],
    ["every extension character takes two septets", "^{}\\[~]|€\f", "GSM7", 1, 10, 20],
    ["159 septets then an escape pair overflow to two", a(159) + "€", "GSM7", 2, 160, 161],
    ["an escape pair is not split at the 153 boundary", a(152) + "€" + a(152), "GSM7", 3, 305, 306],
    ["an escape pair exactly at the 153 boundary fits", a(151) + "€" + a(153), "GSM7", 2, 305, 306],
    ["one non-GSM character switches to UCS-2", a(69) + "ç", "UCS2", 1, 70, 70],
    ["70 UCS-2 characters fill one segment", han(70), "UCS2", 1, 70, 70],
    ["71 UCS-2 characters need two", han(71), "UCS2", 2, 71, 71],
    ["67 × 2 fill two concatenated UCS-2 segments", han(134), "UCS2", 2, 134, 134],
    ["67 × 2 + 1 needs three", han(135), "UCS2", 3, 135, 135],
    ["an emoji is two UTF-16 units", "😀", "UCS2", 1, 1, 2],
    ["35 emoji are exactly 70 units", emoji(35), "UCS2", 1, 35, 70],
    ["36 emoji need two segments", emoji(36), "UCS2", 2, 36, 72],
    ["a surrogate pair is not split at the 67 boundary", han(66) + "😀" + han(66), "UCS2", 3, 133, 134],
    ["a surrogate pair exactly at the boundary fits", han(65) + "😀" + han(67), "UCS2", 2, 133, 134],
    ["euro with an emoji is UCS-2 where the euro is one unit", "€😀", "UCS2", 1, 2, 3],
    ["curly quotes are not GSM-7", "it’s", "UCS2", 1, 4, 4],
  ] as const)("%s", (_name, text, encoding, segments, characters, units) => {
    expect(countSegments(text)).toEqual({ encoding, segments, characters, units });
  });

  it("tells whether a text fits the GSM-7 alphabet", () => {
    expect(isGsm7("Hello {name}, 50% off! €5")).toBe(true);
    expect(isGsm7("Olá, ça va?")).toBe(false);
    expect(isGsm7("")).toBe(true);
  });
});
