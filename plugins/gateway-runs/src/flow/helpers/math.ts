/**
 * Arithmetic helpers (reference formats §2.6) as the origin computes them: Python `float()` of each
 * operand (numeric text accepted, anything else a `ValueError`/`TypeError`), Python's `%` and
 * `round` (ties to even), `Division by zero`.
 */
import { PythonError, pythonRepr } from '../python-text.js';
import { pythonTypeName } from './python-format.js';
import { type Helpers, type Inputs } from './helper.js';

const FLOAT_TEXT = /^[-+]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][-+]?\d(?:_?\d)*)?|\d(?:_?\d)*\.)$/;

/** Python `float(v)`. */
export function pythonFloat(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const s = v.trim();
    if (/^[-+]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
    if (/^[-+]?nan$/i.test(s)) return NaN;
    if (FLOAT_TEXT.test(s)) return Number(s.replace(/_/g, ''));
    throw new PythonError('ValueError', `could not convert string to float: ${pythonRepr(v)}`);
  }
  throw new PythonError('TypeError', `float() argument must be a string or a real number, not '${pythonTypeName(v)}'`);
}

/** `float(inputs.get(pin, fallback))`: a pin that is not there counts as `fallback`. */
const operand = (i: Inputs, pin: string, fallback: number) => pythonFloat(i[pin] === undefined ? fallback : i[pin]);

/** Python's float `%`: the result has the sign of the divisor. */
function pythonModulo(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

/** Python `round(x, n)`: to `n` decimals (negative: tens, hundreds), exact ties to even. */
function pythonRound(x: number, decimals: number): number {
  if (!Number.isFinite(x)) return x;
  if (decimals < 0) {
    const scale = 10 ** -decimals;
    const q = x / scale;
    const r = Math.round(q);
    return (Math.abs(q % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r) * scale;
  }
  const digits = Math.min(decimals, 100);
  const text = Math.abs(x).toFixed(digits);
  const exact = Math.abs(x).toFixed(Math.min(digits + 30, 100));
  const tail = exact.slice(text.length + (digits === 0 ? 1 : 0));
  let rounded = Number(text);
  if (/^50*$/.test(tail)) {
    const down = Number(exact.slice(0, text.length));
    const lastDigit = exact.slice(0, text.length).replace('.', '').at(-1);
    if (lastDigit !== undefined && Number(lastDigit) % 2 === 0) rounded = down;
  }
  return x < 0 ? -rounded : rounded;
}

export const mathHelpers: Helpers = {
  add: (i) => operand(i, 'a', 0) + operand(i, 'b', 0),
  subtract: (i) => operand(i, 'a', 0) - operand(i, 'b', 0),
  multiply: (i) => operand(i, 'a', 0) * operand(i, 'b', 0),
  divide: (i) => {
    const b = operand(i, 'b', 1);
    if (b === 0) throw new PythonError('ValueError', 'Division by zero');
    return operand(i, 'a', 0) / b;
  },
  modulo: (i) => {
    const b = operand(i, 'b', 1);
    if (b === 0) throw new PythonError('ValueError', 'Modulo by zero');
    return pythonModulo(operand(i, 'a', 0), b);
  },
  power: (i) => operand(i, 'base', 0) ** operand(i, 'exp', 1),
  abs: (i) => Math.abs(pythonFloat(i.value ?? i.a ?? 0)),
  round: (i) => {
    const decimals = i.decimals === undefined ? 0 : Math.trunc(pythonFloat(i.decimals));
    return pythonRound(pythonFloat(i.value ?? i.a ?? 0), decimals);
  },
  random_int: (i) => {
    const read = (v: unknown, fallback: number) => {
      try {
        return Math.trunc(pythonFloat(v));
      } catch {
        return fallback;
      }
    };
    let [min, max] = [read(i.min ?? 0, 0), read(i.max ?? 100, 100)];
    if (!Number.isFinite(min)) min = 0;
    if (!Number.isFinite(max)) max = 100;
    if (max < min) [min, max] = [max, min];
    return min + Math.floor(Math.random() * (max - min + 1));
  },
  random_float: (i) => {
    const read = (v: unknown, fallback: number) => {
      try {
        return pythonFloat(v);
      } catch {
        return fallback;
      }
    };
    let [min, max] = [read(i.min ?? 0, 0), read(i.max ?? 1, 1)];
    if (max < min) [min, max] = [max, min];
    return max === min ? min : min + (max - min) * Math.random();
  },
};
