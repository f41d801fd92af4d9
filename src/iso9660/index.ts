// A writer of small, flat ISO 9660 images with Rock Ridge names and
// optional Joliet names (SPEC 20).
export { buildIsoImage, DEFAULT_DATE } from './image.js';
export { MAX_NAME_BYTES, type IsoFile } from './files.js';
