import FaceCrop
