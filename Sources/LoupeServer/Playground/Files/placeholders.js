// Placeholder decoders: BlurHash and ThumbHash to RGBA pixels, written from the formats'
// descriptions. Both return {width, height, pixels: Uint8ClampedArray} for an ImageData, and
// the colour each hash stores as its average (BlurHash's DC term, ThumbHash's DC of L, P, Q).
"use strict";

const BASE83 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~";

function base83(text, from, to) {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = BASE83.indexOf(text[i]);
    if (digit < 0) throw new Error("BlurHash: '" + text[i] + "' is not a base-83 digit");
    value = value * 83 + digit;
  }
  return value;
}

function srgbToLinear(byte) {
  const v = byte / 255;
  return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
}

function linearToSrgb(v) {
  const c = Math.max(0, Math.min(1, v));
  return Math.round((c <= 0.0031308 ? c * 12.92 : 1.055 * Math.pow(c, 1 / 2.4) - 0.055) * 255);
}

// BlurHash: size flag, quantised maximum AC, the DC as 24-bit sRGB, then each AC term as
// three base-19 digits of a signed square-root-quantised value.
function decodeBlurHash(hash, width, height) {
  if (typeof hash !== "string" || hash.length < 6) throw new Error("BlurHash: too short");
  const size = base83(hash, 0, 1);
  const nx = (size % 9) + 1, ny = Math.floor(size / 9) + 1;
  if (hash.length !== 4 + 2 * nx * ny) throw new Error("BlurHash: length does not match its " + nx + "×" + ny + " components");
  const maxAC = (base83(hash, 1, 2) + 1) / 166;
  const dc = base83(hash, 2, 6);
  const colors = [[srgbToLinear(dc >> 16), srgbToLinear((dc >> 8) & 255), srgbToLinear(dc & 255)]];
  const signedSquare = (q) => { const v = (q - 9) / 9; return Math.sign(v) * v * v * maxAC; };
  for (let i = 1; i < nx * ny; i++) {
    const v = base83(hash, 4 + i * 2, 6 + i * 2);
    colors.push([signedSquare(Math.floor(v / 361)), signedSquare(Math.floor(v / 19) % 19), signedSquare(v % 19)]);
  }
  const pixels = new Uint8ClampedArray(width * height * 4);
  const cosX = new Float64Array(width * nx), cosY = new Float64Array(height * ny);
  for (let x = 0; x < width; x++) for (let i = 0; i < nx; i++) cosX[x * nx + i] = Math.cos(Math.PI * x * i / width);
  for (let y = 0; y < height; y++) for (let j = 0; j < ny; j++) cosY[y * ny + j] = Math.cos(Math.PI * y * j / height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0;
      for (let j = 0; j < ny; j++) {
        for (let i = 0; i < nx; i++) {
          const basis = cosX[x * nx + i] * cosY[y * ny + j], c = colors[j * nx + i];
          r += c[0] * basis; g += c[1] * basis; b += c[2] * basis;
        }
      }
      const o = (y * width + x) * 4;
      pixels[o] = linearToSrgb(r); pixels[o + 1] = linearToSrgb(g); pixels[o + 2] = linearToSrgb(b); pixels[o + 3] = 255;
    }
  }
  return { width, height, pixels, average: [dc >> 16, (dc >> 8) & 255, dc & 255] };
}

// ThumbHash: a 24-bit and a 16-bit header (DC and scale of luminance L and the chroma pair P, Q,
// alpha flag, orientation and L's component count), an optional alpha byte, then 4-bit AC
// coefficients for L, P, Q (and A), each channel's in a triangle of its DCT grid.
function decodeThumbHash(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length < 5) throw new Error("ThumbHash: too short");
  const header24 = bytes[0] | (bytes[1] << 8) | (bytes[2] << 16), header16 = bytes[3] | (bytes[4] << 8);
  const lDC = (header24 & 63) / 63, pDC = ((header24 >> 6) & 63) / 31.5 - 1, qDC = ((header24 >> 12) & 63) / 31.5 - 1;
  const lScale = ((header24 >> 18) & 31) / 31, hasAlpha = (header24 >> 23) !== 0;
  const pScale = ((header16 >> 3) & 63) / 63, qScale = ((header16 >> 9) & 63) / 63, landscape = (header16 >> 15) !== 0;
  const lx = Math.max(3, landscape ? (hasAlpha ? 5 : 7) : header16 & 7);
  const ly = Math.max(3, landscape ? header16 & 7 : (hasAlpha ? 5 : 7));
  if (hasAlpha && bytes.length < 6) throw new Error("ThumbHash: too short for its alpha");
  const aDC = hasAlpha ? (bytes[5] & 15) / 15 : 1, aScale = hasAlpha ? (bytes[5] >> 4) / 15 : 0;
  const start = hasAlpha ? 6 : 5;
  let index = 0;
  const channel = (nx, ny, scale) => {
    const ac = [];
    for (let cy = 0; cy < ny; cy++) {
      for (let cx = cy ? 0 : 1; cx * ny < nx * (ny - cy); cx++, index++) {
        const at = start + (index >> 1);
        if (at >= bytes.length) throw new Error("ThumbHash: ends inside its coefficients");
        ac.push((((bytes[at] >> ((index & 1) << 2)) & 15) / 7.5 - 1) * scale);
      }
    }
    return ac;
  };
  const lAC = channel(lx, ly, lScale), pAC = channel(3, 3, pScale * 1.25), qAC = channel(3, 3, qScale * 1.25);
  const aAC = hasAlpha ? channel(5, 5, aScale) : [];
  const ratio = lx / ly;
  const width = Math.round(ratio > 1 ? 32 : 32 * ratio), height = Math.round(ratio > 1 ? 32 / ratio : 32);
  const pixels = new Uint8ClampedArray(width * height * 4);
  const n = Math.max(lx, ly, hasAlpha ? 5 : 3);
  const fx = new Float64Array(n), fy = new Float64Array(n);
  const toRGB = (l, p, q) => { const b = l - 2 / 3 * p, r = (3 * l - b + q) / 2; return [r, r - q, b]; };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < n; c++) { fx[c] = Math.cos(Math.PI / width * (x + 0.5) * c); fy[c] = Math.cos(Math.PI / height * (y + 0.5) * c); }
      let l = lDC, p = pDC, q = qDC, a = aDC;
      for (let cy = 0, j = 0; cy < ly; cy++) for (let cx = cy ? 0 : 1; cx * ly < lx * (ly - cy); cx++, j++) l += lAC[j] * fx[cx] * fy[cy] * 2;
      for (let cy = 0, j = 0; cy < 3; cy++) {
        for (let cx = cy ? 0 : 1; cx < 3 - cy; cx++, j++) { const f = fx[cx] * fy[cy] * 2; p += pAC[j] * f; q += qAC[j] * f; }
      }
      if (hasAlpha) for (let cy = 0, j = 0; cy < 5; cy++) for (let cx = cy ? 0 : 1; cx < 5 - cy; cx++, j++) a += aAC[j] * fx[cx] * fy[cy] * 2;
      const [r, g, b] = toRGB(l, p, q), o = (y * width + x) * 4;
      pixels[o] = Math.round(Math.max(0, Math.min(1, r)) * 255);
      pixels[o + 1] = Math.round(Math.max(0, Math.min(1, g)) * 255);
      pixels[o + 2] = Math.round(Math.max(0, Math.min(1, b)) * 255);
      pixels[o + 3] = Math.round(Math.max(0, Math.min(1, a)) * 255);
    }
  }
  const average = toRGB(lDC, pDC, qDC).map((v) => Math.round(Math.max(0, Math.min(1, v)) * 255));
  return { width, height, pixels, average };
}

function base64Bytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// Draws decoded pixels into a canvas and returns the canvas's mean colour as read back.
function paintPlaceholder(canvas, decoded) {
  canvas.width = decoded.width;
  canvas.height = decoded.height;
  const context = canvas.getContext("2d");
  context.putImageData(new ImageData(decoded.pixels, decoded.width, decoded.height), 0, 0);
}

function canvasAverage(canvas) {
  const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  const sum = [0, 0, 0];
  for (let i = 0; i < data.length; i += 4) { sum[0] += data[i]; sum[1] += data[i + 1]; sum[2] += data[i + 2]; }
  const count = data.length / 4;
  return sum.map((v) => Math.round(v / count));
}

window.LoupePlaceholders = { decodeBlurHash, decodeThumbHash, base64Bytes, paintPlaceholder, canvasAverage };
