import { createCanvas, type Canvas } from '@napi-rs/canvas';
import sharp, { type Sharp } from 'sharp';
import { prng } from './render-support.js';

export type ImageFormat = 'png' | 'jpg';

export function encode(img: Sharp, format: ImageFormat, quality = 90): Promise<Buffer> {
  // Low PNG compression: these images are throwaway test inputs and speed matters more than bytes.
  return format === 'png'
    ? img.png({ compressionLevel: 3 }).toBuffer()
    : img.flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer();
}

/** Adds luminance noise (triangular distribution, +-amp) in place to packed RGB or RGBA pixels. */
export function addNoise(data: Buffer, amp: number, seed: number, channels = 3): void {
  const rnd = prng(seed);
  for (let i = 0; i < data.length; i += channels) {
    const n = (rnd() + rnd() - 1) * amp;
    for (let c = 0; c < 3; c++) {
      const v = data[i + c] + n;
      data[i + c] = v < 0 ? 0 : v > 255 ? 255 : v;
    }
  }
}

function toSharp(c: Canvas): Sharp {
  return sharp(c.data(), { raw: { width: c.width, height: c.height, channels: 4 } });
}

/** A canvas filled with a diagonal gradient: what lies behind the slip in a photo. */
function backdrop(width: number, height: number, from: string, to: string) {
  const out = createCanvas(width, height);
  const ctx = out.getContext('2d');
  const gradient = ctx.createLinearGradient(0, 0, width, height);
  gradient.addColorStop(0, from);
  gradient.addColorStop(1, to);
  ctx.fillStyle = gradient;
  ctx.fillRect(0, 0, width, height);
  return { out, ctx };
}

/**
 * A phone photographed while showing the slip: perspective (top edge farther away), bezel, moire
 * from the screen's pixel grid beating against the camera sensor, glare and uneven light. Canvas has
 * only affine transforms, so the perspective is approximated by drawing thin horizontal strips,
 * each scaled to the width of the trapezoid at its height.
 */
export function screenPhoto(slip: Canvas, seed: number): Sharp {
  const W = 1536;
  const H = 2048;
  const rnd = prng(seed);
  const { out, ctx } = backdrop(W, H, '#5b5147', '#2c2722');

  const top = 190;
  const bottom = 1880;
  const topW = 860;
  const bottomW = 1060;
  const cx = W / 2 + (rnd() - 0.5) * 60;
  ctx.save();
  ctx.translate(W / 2, H / 2);
  ctx.rotate(((rnd() - 0.5) * 4 * Math.PI) / 180);
  ctx.translate(-W / 2, -H / 2);

  // Bezel: a dark trapezoid a little larger than the screen.
  ctx.fillStyle = '#111214';
  ctx.beginPath();
  ctx.moveTo(cx - topW / 2 - 40, top - 110);
  ctx.lineTo(cx + topW / 2 + 40, top - 110);
  ctx.lineTo(cx + bottomW / 2 + 48, bottom + 130);
  ctx.lineTo(cx - bottomW / 2 - 48, bottom + 130);
  ctx.closePath();
  ctx.fill();

  const s = topW / bottomW;
  const strip = 3;
  const mapY = (t: number) => top + (bottom - top) * ((t * s) / (1 + t * (s - 1)));
  for (let sy = 0; sy < slip.height; sy += strip) {
    const t0 = sy / slip.height;
    const t1 = Math.min(1, (sy + strip) / slip.height);
    const y0 = mapY(t0);
    const y1 = mapY(t1);
    const w = topW + (bottomW - topW) * ((y0 - top) / (bottom - top));
    ctx.drawImage(slip, 0, sy, slip.width, Math.min(strip, slip.height - sy), cx - w / 2, y0, w, y1 - y0 + 0.6);
  }

  // Moire: two fine line gratings at slightly different pitch and angle interfere.
  ctx.globalAlpha = 0.09;
  ctx.strokeStyle = '#000000';
  ctx.lineWidth = 1.3;
  for (const [pitch, angle] of [
    [3.1, 0.12],
    [3.45, -0.07],
  ] as const) {
    ctx.save();
    ctx.translate(W / 2, H / 2);
    ctx.rotate(angle);
    ctx.beginPath();
    for (let y = -H; y < H; y += pitch) {
      ctx.moveTo(-W, y);
      ctx.lineTo(W, y);
    }
    ctx.stroke();
    ctx.restore();
  }
  ctx.globalAlpha = 1;
  ctx.restore();

  // Glare from a ceiling light and a darker far corner.
  const gx = W * (0.25 + rnd() * 0.5);
  const glare = ctx.createRadialGradient(gx, H * 0.35, 20, gx, H * 0.35, 700);
  glare.addColorStop(0, 'rgba(255,255,255,0.38)');
  glare.addColorStop(1, 'rgba(255,255,255,0)');
  ctx.fillStyle = glare;
  ctx.fillRect(0, 0, W, H);
  const shade = ctx.createLinearGradient(0, 0, W, H);
  shade.addColorStop(0, 'rgba(0,0,0,0)');
  shade.addColorStop(1, 'rgba(0,0,0,0.28)');
  ctx.fillStyle = shade;
  ctx.fillRect(0, 0, W, H);
  return toSharp(out).blur(0.7);
}

/** A 12 MP (4000x3000) camera frame in which the slip fills only part of the picture, a little tilted. */
export function cameraShot(slip: Canvas, seed: number): Sharp {
  const W = 4000;
  const H = 3000;
  const rnd = prng(seed);
  const { out, ctx } = backdrop(W, H, '#a07a52', '#6e5034'); // a wooden table
  for (let i = 0; i < 14; i++) {
    ctx.fillStyle = `rgba(60,40,20,${0.05 + rnd() * 0.08})`;
    ctx.beginPath();
    ctx.ellipse(rnd() * W, rnd() * H, 300 + rnd() * 600, 40 + rnd() * 90, rnd() * 0.3, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.save();
  ctx.translate(W * (0.4 + rnd() * 0.2), H / 2);
  ctx.rotate(((rnd() - 0.5) * 8 * Math.PI) / 180);
  const scale = 1.3;
  ctx.shadowColor = 'rgba(0,0,0,0.5)';
  ctx.shadowBlur = 50;
  ctx.shadowOffsetX = 25;
  ctx.shadowOffsetY = 25;
  ctx.drawImage(slip, (-slip.width * scale) / 2, (-slip.height * scale) / 2, slip.width * scale, slip.height * scale);
  ctx.restore();
  const light = ctx.createRadialGradient(W * 0.3, H * 0.2, 100, W * 0.3, H * 0.2, 3500);
  light.addColorStop(0, 'rgba(255,250,235,0.18)');
  light.addColorStop(1, 'rgba(0,0,0,0.22)');
  ctx.fillStyle = light;
  ctx.fillRect(0, 0, W, H);
  return toSharp(out);
}
