// bottleneck/light.js is Bottleneck without its Redis clustering, the build
// plugin-throttling uses; it ships no types of its own.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck';
  export default Bottleneck;
}
