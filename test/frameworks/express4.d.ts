// Express 4, installed beside Express 5 under an alias; its API is the part both share.
declare module 'express4' {
  import express from 'express';
  export default express;
}
