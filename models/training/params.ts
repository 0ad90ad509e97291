/**
 * Trainable parameters with their gradients and Adam state. Embedding tables get sparse
 * ("lazy") updates: only rows touched in a batch are updated, as most rows are idle.
 */
export class Param {
  readonly grad: Float32Array;
  private m: Float32Array;
  private v: Float32Array;
  /** Rows touched since the last step, for row-sparse tables (rowSize > 0). */
  readonly touched = new Set<number>();

  constructor(readonly name: string, readonly value: Float32Array, readonly shape: number[], readonly rowSize = 0) {
    this.grad = new Float32Array(value.length);
    this.m = new Float32Array(value.length);
    this.v = new Float32Array(value.length);
  }

  zeroGrad(): void {
    if (this.rowSize) {
      for (const r of this.touched) this.grad.fill(0, r * this.rowSize, (r + 1) * this.rowSize);
      this.touched.clear();
    } else this.grad.fill(0);
  }

  /** One Adam step (bias-corrected), with optional decoupled weight decay. */
  adam(step: number, lr: number, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0): void {
    const c1 = 1 - beta1 ** step;
    const c2 = 1 - beta2 ** step;
    const update = (i: number) => {
      const g = this.grad[i]!;
      this.m[i] = beta1 * this.m[i]! + (1 - beta1) * g;
      this.v[i] = beta2 * this.v[i]! + (1 - beta2) * g * g;
      this.value[i] = this.value[i]! - lr * ((this.m[i]! / c1) / (Math.sqrt(this.v[i]! / c2) + eps) + weightDecay * this.value[i]!);
    };
    if (this.rowSize) {
      for (const r of this.touched) for (let i = r * this.rowSize; i < (r + 1) * this.rowSize; i++) update(i);
    } else for (let i = 0; i < this.value.length; i++) update(i);
  }
}

export const softplus = (x: number) => (x > 20 ? x : Math.log1p(Math.exp(x)));
export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
