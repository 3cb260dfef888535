// adam_step: one AdamW element step in PyTorch's order (torch.optim.AdamW), shared by the dense and
// the row-wise optimizer kernels. Reference: src/kernels/recsys/adam.ref.ts (powU32F32, adamElement).

// beta^n by square-and-multiply in f32: WGSL pow's error bound is loose and 1 − β2^t cancels for
// small t, so kernel and reference round the same products instead.
fn adam_pow(beta: f32, n: u32) -> f32 {
  var result = 1.0;
  var base = beta;
  for (var e = n; e > 0u; e = e >> 1u) {
    if ((e & 1u) == 1u) {
      result = result * base;
    }
    base = base * base;
  }
  return result;
}

// Bias corrections of step t (1-based): (lr / (1 − β1^t), sqrt(1 − β2^t)).
fn adam_bias(lr: f32, beta1: f32, beta2: f32, t: u32) -> vec2f {
  return vec2f(lr / (1.0 - adam_pow(beta1, t)), sqrt(1.0 - adam_pow(beta2, t)));
}

// One element: decoupled decay (decay = 1 − lr·weight_decay), then the moments, then the
// bias-corrected step. Returns (weight, m, v).
fn adam_element(w: f32, g: f32, m: f32, v: f32, beta1: f32, beta2: f32, eps: f32, decay: f32, bias: vec2f) -> vec3f {
  let p = w * decay;
  let mi = beta1 * m + (1.0 - beta1) * g;
  let vi = beta2 * v + (1.0 - beta2) * (g * g);
  return vec3f(p - bias.x * (mi / (sqrt(vi) / bias.y + eps)), mi, vi);
}
